// The IPU lowering registry: for each op that can run on the IPU, the
// function that turns it into poplar_sim tensors and programs. It is the
// IPU's "kernel table": the placer asks it whether an op can be placed on an
// IPU, and cluster lowering calls the function of every op.
//
//   absl::Status LowerNeg(LoweringContext& ctx) {
//     ctx.SetOutput(0, popops::neg(ctx.graph(), ctx.input(0), ctx.prog()));
//     return absl::OkStatus();
//   }
//   REGISTER_IPU_LOWERING("Neg", LowerNeg);
//
// A lowering validates what the registry's shape function does not (for
// example that an axis input is a constant) and returns InvalidArgument or
// Unimplemented through ctx.Error / ctx.Unimplemented, which name the op.
//
// Ops that need more than their inputs (loop boundaries, feeds, variables)
// reach the state of the whole cluster through ctx.cluster()
// (emission_state.h): the open loop, the feeds' streams, the variables.
#ifndef TENSORFLOW_IPU_COMPILER_LOWERING_REGISTRY_H_
#define TENSORFLOW_IPU_COMPILER_LOWERING_REGISTRY_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/program.h"
#include "poplar_sim/tensor.h"
#include "tensorflow_ipu/compiler/cluster_ir.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace compiler {

// The poplar_sim element type of a TensorFlow dtype; InvalidArgument for
// dtypes the IPU has no type for (double, resource).
absl::StatusOr<poplar_sim::Type> ToPoplarType(DataType dtype);

class EmissionState;

// What a lowering function sees: its op, its inputs as poplar_sim tensors,
// the graph of its shard's IPU, the program being built (the open loop's
// body inside a loop) and the state of the cluster being emitted.
class LoweringContext {
 public:
  LoweringContext(const ClusterIr& ir, int op_index, poplar_sim::Graph* graph,
                  poplar_sim::program::Sequence* prog,
                  std::vector<poplar_sim::Tensor> inputs,
                  EmissionState* cluster)
      : ir_(ir),
        op_index_(op_index),
        graph_(graph),
        prog_(prog),
        cluster_(cluster),
        inputs_(std::move(inputs)),
        outputs_(ir.ops[op_index].output_types.size()) {}

  const ClusterOp& op() const { return ir_.ops[op_index_]; }
  // The IR the op belongs to (a function's, inside a while loop or cond).
  const ClusterIr& ir() const { return ir_; }
  // The op's index in the cluster, and that of the op producing input i.
  int op_index() const { return op_index_; }
  int input_op(int i) const { return op().inputs[i].op; }
  const NodeDef& def() const { return op().def; }
  poplar_sim::Graph& graph() const { return *graph_; }
  poplar_sim::program::Sequence& prog() const { return *prog_; }
  EmissionState& cluster() const { return *cluster_; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // Input i's tensor; for an index the op does not have (a lowering's own
  // bug: graph import checks every op's arity), an invalid tensor whose
  // Internal error names the op, so that the compile fails with it.
  poplar_sim::Tensor input(int i) const;
  DataType input_type(int i) const { return ir_.type(op().inputs[i]); }
  const TensorShape& input_shape(int i) const {
    return ir_.shape(op().inputs[i]);
  }
  // Whether the lowering may write the op's result over input i's tensor
  // (compiler/input_reuse.h says when: nothing reads it afterwards). False
  // unless the emitter says otherwise (functions of while loops and conds
  // never reuse inputs).
  bool MayOverwriteInput(int i) const {
    return may_overwrite_input_ != nullptr && may_overwrite_input_(i);
  }
  void set_may_overwrite_input(std::function<bool(int)> f) {
    may_overwrite_input_ = std::move(f);
  }
  // The value of input i when its producer is a Const op, else nullptr.
  const Tensor* ConstantInput(int i) const;
  // Input i as a list of integers; InvalidArgument naming the input when it
  // is not a constant (the IPU needs it at compile time).
  absl::StatusOr<std::vector<int64_t>> ConstantIntList(int i) const;

  const TensorShape& output_shape(int k) const { return op().output_shapes[k]; }
  DataType output_type(int k) const { return op().output_types[k]; }
  std::vector<size_t> OutputDims(int k) const;
  void SetOutput(int k, poplar_sim::Tensor t) { outputs_[k] = std::move(t); }
  std::vector<poplar_sim::Tensor> TakeOutputs() { return std::move(outputs_); }

  template <typename T>
  absl::StatusOr<T> GetAttr(absl::string_view name) const {
    return GetNodeAttr<T>(def(), name);
  }

  // A new variable of the op's graph, spread over the IPU's tiles.
  poplar_sim::Tensor AddMappedVariable(poplar_sim::Type type,
                                       std::vector<size_t> dims,
                                       const std::string& name) const;
  // A constant holding `value`, spread over the IPU's tiles.
  absl::StatusOr<poplar_sim::Tensor> AddConstant(const Tensor& value,
                                                 const std::string& name) const;

  // ResourceExhausted naming the op and the output when the op makes an
  // output larger than the whole memory of the IPU it runs on (no tile
  // mapping could hold it) and larger than all its inputs (so the op, not
  // an input, asks for the size: a Fill, a Tile, a broadcast). Every
  // registered lowering runs it first, before it builds anything.
  absl::Status CheckOutputsFitDevice() const;

  // Errors naming the op: "Op 'x' (Sum): <message>".
  absl::Status Error(absl::string_view message) const;
  absl::Status Unimplemented(absl::string_view message) const;

 private:
  const ClusterIr& ir_;
  int op_index_;
  poplar_sim::Graph* graph_;
  poplar_sim::program::Sequence* prog_;
  EmissionState* cluster_;
  std::vector<poplar_sim::Tensor> inputs_;
  std::vector<poplar_sim::Tensor> outputs_;
  std::function<bool(int)> may_overwrite_input_;
};

using LoweringFn = std::function<absl::Status(LoweringContext&)>;

class LoweringRegistry {
 public:
  static LoweringRegistry* Global();
  void Register(std::string op, LoweringFn fn);
  bool Has(absl::string_view op) const;
  // nullptr when the op has no lowering.
  const LoweringFn* Find(absl::string_view op) const;
  std::vector<std::string> ListOps() const;

 private:
  std::map<std::string, LoweringFn, std::less<>> fns_;
};

namespace internal {
struct LoweringRegistrar {
  LoweringRegistrar(const char* op, LoweringFn fn) {
    LoweringRegistry::Global()->Register(op, std::move(fn));
  }
};
}  // namespace internal

#define TFIPU_LOWERING_CONCAT_INNER(a, b) a##b
#define TFIPU_LOWERING_CONCAT(a, b) TFIPU_LOWERING_CONCAT_INNER(a, b)
#define REGISTER_IPU_LOWERING(op, fn)                                  \
  static ::tensorflow_ipu::compiler::internal::LoweringRegistrar       \
      TFIPU_LOWERING_CONCAT(tfipu_lowering_registrar_, __COUNTER__)(op, fn)

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_LOWERING_REGISTRY_H_
