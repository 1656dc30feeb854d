// Executor: runs a pruned subgraph on the CPU, many times.
//
// Building an Executor does all per-signature analysis once: it prunes the
// graph to what the fetches and targets need (stopping at fed tensors),
// checks that every needed placeholder is fed, creates each node's kernel,
// and lays out value slots and dependency counts. Run then only moves
// tensors and calls kernels.
//
// Scheduling: a node runs when all its inputs and control inputs are done.
// Cheap kernels run inline on the thread that made them ready; when several
// expensive nodes become ready together, all but one go to the thread pool,
// so independent branches run in parallel. Run is safe to call from several
// threads at once (each call has its own values).
#ifndef TENSORFLOW_IPU_RUNTIME_EXECUTOR_H_
#define TENSORFLOW_IPU_RUNTIME_EXECUTOR_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/runtime/cpu_device.h"
#include "tensorflow_ipu/runtime/function_executors.h"

namespace tensorflow_ipu {

class Executor {
 public:
  struct Spec {
    std::vector<TensorRef> feeds;
    std::vector<TensorRef> fetches;
    std::vector<const Node*> targets;
    // Run the nodes one after another on the calling thread (a function's
    // executor: see function_executors.h).
    bool sequential = false;
  };

  static absl::StatusOr<std::unique_ptr<Executor>> Create(
      const Spec& spec, CpuDevice* device, ResourceManager* resources);

  // `feed_values` in the order of spec.feeds (already validated);
  // `fetch_values` receives spec.fetches in order. Kernels report what the
  // run cost into `collector` (nullptr: nothing is recorded), and every
  // node is timed when it asks for traces.
  // After `deadline`, the run stops before its next node with
  // DeadlineExceeded.
  absl::Status Run(const std::vector<Tensor>& feed_values,
                   std::vector<Tensor>* fetch_values,
                   RunCollector* collector = nullptr,
                   absl::Time deadline = absl::InfiniteFuture()) const;

  int num_nodes() const { return static_cast<int>(items_.size()); }

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  ~Executor();

 private:
  struct Item {
    const Node* node = nullptr;
    std::unique_ptr<OpKernel> kernel;
    std::vector<int> input_slots;
    int output_base = 0;
    std::vector<int> successors;
    int num_predecessors = 0;
    bool expensive = true;
    // Inputs fed by a reference variable (VariableV2), which must be
    // initialised unless this node is the Assign that initialises it.
    std::vector<int> ref_inputs;
    // Slots whose last reader, in sequential order, is this item (or, for
    // outputs nobody reads, their producer) and that are not fetched: the
    // sequential path drops them after it runs, so that a buffer is freed,
    // and a variable's read released (its update can then write in place),
    // as soon as nothing needs it.
    std::vector<int> release_after;
    // A MatMul whose product is only the gradient of the update item
    // `folded_into`, which takes its step inside the product
    // (gradient_update_fusion.h): this item then computes nothing, unless
    // the run traces nodes (each node is then timed on its own).
    int folded_into = -1;
    // For that update: the MatMul item, and its transpose attributes. When
    // the update cannot take the step that way, it runs the MatMul first.
    int folds = -1;
    bool fold_ta = false;
    bool fold_tb = false;
    // The last node of a dense layer's MatMul -> BiasAdd (-> Relu) chain
    // that computes the chain in one kernel run (bias_activation_fusion.h;
    // the earlier nodes are folded_into it): the MatMul item, the BiasAdd
    // item (this item when there is no Relu), and the MatMul's transpose
    // attributes.
    int fused_product = -1;
    int fused_bias_add = -1;
    bool fused_ta = false;
    bool fused_tb = false;
    // A node whose outputs are the same on every run (constant_folding.h),
    // computed when the executor was built: the outputs (empty for other
    // nodes), and the slots of the inputs it read for their shape only,
    // with the static shapes the outputs were computed for.
    std::vector<Tensor> constant_outputs;
    std::vector<std::pair<int, TensorShape>> constant_shape_checks;
  };
  struct RunState;

  Executor() = default;
  absl::Status RunSequential(RunState* state) const;
  absl::Status RunParallel(RunState* state) const;
  void Process(RunState* state, int item) const;
  // Runs item `item` (or what its folding says: see Item), after checking
  // the run's deadline.
  absl::Status ComputeItem(RunState* state, int item) const;
  // The kernel context of item `item`'s node, reading `inputs` and writing
  // the item's output slots.
  OpKernelContext::Params ParamsFor(RunState* state, int item,
                                    absl::Span<const Tensor* const> inputs) const;
  // Calls item `item`'s kernel.
  absl::Status RunKernel(RunState* state, int item) const;
  // The update item `item` taking its step inside its MatMul's product;
  // false when it cannot (nothing done).
  absl::StatusOr<bool> RunFoldedUpdate(RunState* state, int item) const;
  // The last item of a fused dense layer computing the whole chain; false
  // when it cannot (nothing done).
  absl::StatusOr<bool> RunFusedDenseLayer(RunState* state, int item) const;
  // Computes the outputs of the nodes FindConstantFolds names, once, into
  // their items (a node whose kernel fails is left to run, and to report
  // its error, on every run).
  void FoldConstants(const std::vector<const Node*>& needed_nodes, const Spec& spec,
                     const std::vector<int>& item_of);
  // Whether item `item`'s outputs were set from its constants.
  bool SetConstantOutputs(RunState* state, int item) const;

  CpuDevice* device_ = nullptr;
  // The functions the graph's control-flow nodes call; nullptr when none.
  std::unique_ptr<FunctionExecutors> functions_;
  ResourceManager* resources_ = nullptr;
  std::vector<Item> items_;
  std::vector<int> roots_;
  int num_slots_ = 0;
  int feed_slot_base_ = 0;
  std::vector<int> fetch_slots_;
  bool parallel_ = false;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_EXECUTOR_H_
