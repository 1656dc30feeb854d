#include "tensorflow_ipu/runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/gradient_descent_of_product.h"
#include "tensorflow_ipu/core/kernels/matmul_bias_activation.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/bias_activation_fusion.h"
#include "tensorflow_ipu/runtime/constant_folding.h"
#include "tensorflow_ipu/runtime/gradient_update_fusion.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"

namespace tensorflow_ipu {

namespace {

absl::Status UninitializedRefError(const Tensor& ref, const std::string& user) {
  return absl::FailedPreconditionError(absl::StrCat(
      "Attempting to use uninitialized value ", ref.resource_handle()->name,
      " (read by ", user, "): run its Assign initializer first"));
}

}  // namespace

struct Executor::RunState {
  RunCollector* collector = nullptr;
  absl::Time deadline = absl::InfiniteFuture();
  std::vector<Tensor> slots;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::atomic<int> outstanding{0};
  std::atomic<bool> aborted{false};
  // Set when an input that a folded node read for its shape has another
  // shape in this run: the run's remaining folded nodes then run their
  // kernels (see SetConstantOutputs).
  std::atomic<bool> constants_abandoned{false};
  absl::Mutex mu;
  absl::Status status ABSL_GUARDED_BY(mu);
  absl::Notification done;
};

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(
    const Spec& spec, CpuDevice* device, ResourceManager* resources) {
  std::unique_ptr<Executor> ex(new Executor);
  ex->device_ = device;
  ex->resources_ = resources;

  auto key = [](const TensorRef& r) {
    return (static_cast<int64_t>(r.node->id()) << 20) | r.index;
  };
  absl::flat_hash_map<int64_t, int> fed;  // tensor -> feed position
  for (int k = 0; k < static_cast<int>(spec.feeds.size()); ++k) {
    fed[key(spec.feeds[k])] = k;
  }

  // Prune: walk back from fetches and targets, stopping at fed tensors.
  const std::vector<const Node*> needed_nodes =
      NeededNodes(spec.feeds, spec.fetches, spec.targets);

  // Node id -> item index, -1 for nodes the run does not need. Ids are
  // dense, so a table keeps Create linear in the graph's size.
  std::vector<int> item_of(
      needed_nodes.empty() ? 0 : needed_nodes.back()->id() + 1, -1);
  ex->items_.resize(needed_nodes.size());
  int slot = 0;
  for (int i = 0; i < static_cast<int>(needed_nodes.size()); ++i) {
    const Node* n = needed_nodes[i];
    if (n->op() == "Placeholder") {
      return absl::InvalidArgumentError(absl::StrCat(
          "You must feed a value for placeholder tensor '", n->name(),
          "' with dtype ", DataTypeString(n->output_type(0)), " and shape ",
          n->output_shape(0).DebugString()));
    }
    item_of[n->id()] = i;
    Item& item = ex->items_[i];
    item.node = n;
    item.output_base = slot;
    slot += n->num_outputs();
  }
  ex->feed_slot_base_ = slot;
  ex->num_slots_ = slot + static_cast<int>(spec.feeds.size());

  std::vector<int> preds;  // scratch, reused: one allocation, not one per node
  for (int i = 0; i < static_cast<int>(ex->items_.size()); ++i) {
    Item& item = ex->items_[i];
    const Node* n = item.node;
    preds.clear();
    item.input_slots.reserve(n->inputs().size());
    for (const TensorRef& in : n->inputs()) {
      if (in.node->op() == "VariableV2" && n->op() != "Assign") {
        item.ref_inputs.push_back(static_cast<int>(item.input_slots.size()));
      }
      auto f = fed.find(key(in));
      if (f != fed.end()) {
        item.input_slots.push_back(ex->feed_slot_base_ + f->second);
      } else {
        const int src = item_of[in.node->id()];
        item.input_slots.push_back(ex->items_[src].output_base + in.index);
        preds.push_back(src);
      }
    }
    for (const Node* c : n->control_inputs()) preds.push_back(item_of[c->id()]);
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    item.num_predecessors = static_cast<int>(preds.size());
    for (int p : preds) ex->items_[p].successors.push_back(i);
    if (preds.empty()) ex->roots_.push_back(i);

    ASSIGN_OR_RETURN(item.kernel,
                     KernelRegistry::Global()->CreateKernel(*n, kDeviceTypeCpu,
                                                            resources));
    item.expensive = item.kernel->IsExpensive();
  }

  ex->FoldConstants(needed_nodes, spec, item_of);

  for (const TensorRef& f : spec.fetches) {
    auto it = fed.find(key(f));
    ex->fetch_slots_.push_back(
        it != fed.end() ? ex->feed_slot_base_ + it->second
                        : ex->items_[item_of[f.node->id()]].output_base + f.index);
  }

  for (const GradientUpdateFusion& f :
       FindGradientUpdateFusions(needed_nodes, spec.feeds, spec.fetches)) {
    // A reference variable's input (an operand, or a learning rate kept in
    // a VariableV2) must be checked for a value by its item's own kernel
    // run (RunKernel's ref_inputs).
    if (!ex->items_[f.product].ref_inputs.empty() || !ex->items_[f.update].ref_inputs.empty()) {
      continue;
    }
    Item& update = ex->items_[f.update];
    ex->items_[f.product].folded_into = f.update;
    update.folds = f.product;
    update.fold_ta = f.transpose_a;
    update.fold_tb = f.transpose_b;
  }

  for (const BiasActivationFusion& f :
       FindBiasActivationFusions(needed_nodes, spec.feeds, spec.fetches)) {
    const int last = f.relu >= 0 ? f.relu : f.bias_add;
    const int chain[3] = {f.product, f.bias_add, last};
    // As above: reference variables are checked by their own items; and a
    // MatMul already folded into an update stays there.
    bool plain = true;
    for (int k : chain) {
      const Item& it = ex->items_[k];
      plain &= it.ref_inputs.empty() && it.folded_into < 0 && it.folds < 0;
    }
    if (!plain) continue;
    ex->items_[f.product].folded_into = last;
    if (last != f.bias_add) ex->items_[f.bias_add].folded_into = last;
    Item& fused = ex->items_[last];
    fused.fused_product = f.product;
    fused.fused_bias_add = f.bias_add;
    fused.fused_ta = f.transpose_a;
    fused.fused_tb = f.transpose_b;
  }

  // An output nothing reads is dropped right after its producer ran.
  std::vector<int> last_reader(ex->num_slots_, -1);
  for (int i = 0; i < static_cast<int>(ex->items_.size()); ++i) {
    const Item& item = ex->items_[i];
    for (int k = 0; k < item.node->num_outputs(); ++k) last_reader[item.output_base + k] = i;
  }
  for (int i = 0; i < static_cast<int>(ex->items_.size()); ++i) {
    for (int s : ex->items_[i].input_slots) last_reader[s] = std::max(last_reader[s], i);
    // A folded MatMul's operands are read by its update.
    // Folded items' inputs are read by the item that computes them.
    for (int folded : {ex->items_[i].folds, ex->items_[i].fused_product,
                       ex->items_[i].fused_bias_add}) {
      if (folded < 0) continue;
      for (int s : ex->items_[folded].input_slots) last_reader[s] = std::max(last_reader[s], i);
    }
  }
  for (int s : ex->fetch_slots_) last_reader[s] = -1;
  for (int s = 0; s < ex->num_slots_; ++s) {
    if (last_reader[s] >= 0) ex->items_[last_reader[s]].release_after.push_back(s);
  }

  int expensive = 0;
  bool calls_functions = false;
  for (const Item& item : ex->items_) {
    expensive += item.expensive ? 1 : 0;
    calls_functions |= !FunctionAttrsOf(*item.node).empty();
  }
  ex->parallel_ = !spec.sequential && device->num_threads() > 1 && expensive >= 2;
  if (calls_functions) ex->functions_ = std::make_unique<FunctionExecutors>(device, resources);
  return ex;
}

Executor::~Executor() = default;

void Executor::FoldConstants(const std::vector<const Node*>& needed_nodes, const Spec& spec,
                             const std::vector<int>& item_of) {
  // Folded values live as long as the executor, and an input read for its
  // shape is stood in for by a tensor of that shape: both are bounded, so
  // that folding never pins or allocates much memory (grappler stops at
  // 10 MB; what folds here is gradient seeds, shapes and scalars).
  constexpr size_t kMaxBytes = size_t{1} << 20;
  for (const ConstantFold& f : FindConstantFolds(needed_nodes, spec.feeds)) {
    Item& item = items_[f.position];
    const Node* n = item.node;
    // A Const's kernel already only shares its value: its nodes keep their
    // kernel, and nodes that read them take the value from the node (a
    // 100k-node graph of constants is built no slower for folding).
    if (n->constant_value() != nullptr) continue;
    // Not even computed when the value would be too large to keep.
    bool small = true;
    for (int k = 0; k < n->num_outputs(); ++k) {
      const TensorShape& shape = n->output_shape(k);
      small &= shape.IsFullyDefined() && DataTypeSize(n->output_type(k)) > 0 &&
               static_cast<size_t>(shape.num_elements()) * DataTypeSize(n->output_type(k)) <=
                   kMaxBytes;
    }
    if (!small) continue;
    std::vector<Tensor> stand_ins(n->num_inputs());
    std::vector<const Tensor*> inputs(n->num_inputs(), nullptr);
    bool ready = true;
    for (int k = 0; k < n->num_inputs() && ready; ++k) {
      const TensorRef& in = n->input(k);
      if (std::find(f.shape_inputs.begin(), f.shape_inputs.end(), k) != f.shape_inputs.end()) {
        const DataType dtype = in.node->output_type(in.index);
        const TensorShape& shape = in.node->output_shape(in.index);
        ready = DataTypeSize(dtype) > 0 &&
                static_cast<size_t>(shape.num_elements()) * DataTypeSize(dtype) <= kMaxBytes;
        if (ready) {
          stand_ins[k] = Tensor(dtype, shape);
          inputs[k] = &stand_ins[k];
        }
        continue;
      }
      if (in.node->constant_value() != nullptr) {
        inputs[k] = in.node->constant_value();
        continue;
      }
      // A producer whose kernel failed, or whose value was too large, has
      // no constants.
      const Item& producer = items_[item_of[in.node->id()]];
      ready = in.index < static_cast<int>(producer.constant_outputs.size());
      if (ready) inputs[k] = &producer.constant_outputs[in.index];
    }
    if (!ready) continue;
    std::vector<Tensor> outputs(n->num_outputs());
    OpKernelContext::Params params;
    params.node = n;
    params.inputs = absl::MakeConstSpan(inputs);
    params.outputs = outputs.data();
    params.eigen_device = &device_->eigen_device();
    params.resources = resources_;
    OpKernelContext ctx(params);
    if (!item.kernel->Compute(&ctx).ok()) continue;  // the error is the run's to report
    size_t bytes = 0;
    bool set = true;
    for (const Tensor& t : outputs) {
      set &= t.IsInitialized();
      bytes += t.TotalBytes();
    }
    if (!set || bytes > kMaxBytes) continue;
    item.constant_outputs = std::move(outputs);
    for (int k : f.shape_inputs) {
      const TensorRef& in = n->input(k);
      item.constant_shape_checks.emplace_back(item.input_slots[k],
                                              in.node->output_shape(in.index));
    }
  }
}

bool Executor::SetConstantOutputs(RunState* state, int i) const {
  const Item& item = items_[i];
  if (state->constants_abandoned.load(std::memory_order_relaxed)) return false;
  // The static shapes the values were computed for are what the kernels
  // give; this check only guards the values against a shape function that
  // disagrees with its kernel.
  for (const auto& [slot, shape] : item.constant_shape_checks) {
    if (state->slots[slot].shape() != shape) {
      state->constants_abandoned.store(true, std::memory_order_relaxed);
      return false;
    }
  }
  for (size_t k = 0; k < item.constant_outputs.size(); ++k) {
    state->slots[item.output_base + k] = item.constant_outputs[k];
  }
  return true;
}

absl::Status Executor::ComputeItem(RunState* state, int i) const {
  const Item& item = items_[i];
  if (state->deadline != absl::InfiniteFuture() && absl::Now() > state->deadline) {
    return absl::DeadlineExceededError(absl::StrCat(
        "The run passed its deadline (RunOptions.timeout_in_ms) before node '",
        item.node->name(), "' (", item.node->op(), ") ran"));
  }
  const bool traced = state->collector != nullptr && state->collector->trace_nodes();
  // A traced run times every node, so it runs the kernels.
  if (!traced && !item.constant_outputs.empty() && SetConstantOutputs(state, i)) {
    return absl::OkStatus();
  }
  if (item.folded_into >= 0 && !traced) return absl::OkStatus();  // its update computes it
  if (item.folds >= 0 && !state->slots[items_[item.folds].output_base].IsInitialized()) {
    ASSIGN_OR_RETURN(const bool done, RunFoldedUpdate(state, i));
    if (done) return absl::OkStatus();
    RETURN_IF_ERROR(RunKernel(state, item.folds));
  }
  if (item.fused_product >= 0 &&
      !state->slots[items_[item.fused_product].output_base].IsInitialized()) {
    ASSIGN_OR_RETURN(const bool done, RunFusedDenseLayer(state, i));
    if (done) return absl::OkStatus();
    // The kernels in order, which say what is wrong in their own words.
    RETURN_IF_ERROR(RunKernel(state, item.fused_product));
    if (item.fused_bias_add != i) RETURN_IF_ERROR(RunKernel(state, item.fused_bias_add));
  }
  return RunKernel(state, i);
}

OpKernelContext::Params Executor::ParamsFor(RunState* state, int i,
                                            absl::Span<const Tensor* const> inputs) const {
  const Item& item = items_[i];
  OpKernelContext::Params params;
  params.node = item.node;
  params.inputs = inputs;
  // Pointer arithmetic, not slots[...]: a node without outputs may sit at
  // the end of the slots (or the slots may be empty), where operator[] would
  // bind a reference past the end.
  params.outputs = state->slots.data() + item.output_base;
  params.eigen_device = &device_->eigen_device();
  params.resources = resources_;
  params.run_collector = state->collector;
  params.function_caller = functions_.get();
  params.deadline = state->deadline;
  return params;
}

absl::StatusOr<bool> Executor::RunFusedDenseLayer(RunState* state, int i) const {
  const Item& item = items_[i];
  const Item& product = items_[item.fused_product];
  const Item& bias_add = items_[item.fused_bias_add];
  // No inputs: the fused kernel reads the chain's operands itself (the
  // last node's own input was never made) and only allocates the output.
  OpKernelContext ctx(ParamsFor(state, i, {}));
  return MatMulBiasActivation(&ctx, state->slots[product.input_slots[0]], item.fused_ta,
                              state->slots[product.input_slots[1]], item.fused_tb,
                              state->slots[bias_add.input_slots[1]],
                              /*relu=*/item.fused_bias_add != i);
}

absl::StatusOr<bool> Executor::RunFoldedUpdate(RunState* state, int i) const {
  const Item& item = items_[i];
  const Item& product = items_[item.folds];
  const Tensor* inputs[2] = {&state->slots[item.input_slots[0]],
                             &state->slots[item.input_slots[1]]};
  OpKernelContext ctx(ParamsFor(state, i, absl::Span<const Tensor* const>(inputs, 2)));
  return ApplyGradientDescentOfProduct(&ctx, state->slots[product.input_slots[0]], item.fold_ta,
                                       state->slots[product.input_slots[1]], item.fold_tb);
}

absl::Status Executor::RunKernel(RunState* state, int i) const {
  const Item& item = items_[i];
  const int n_in = static_cast<int>(item.input_slots.size());
  const Tensor* local[8];
  std::vector<const Tensor*> heap;
  const Tensor** ptrs = local;
  if (n_in > 8) {
    heap.resize(n_in);
    ptrs = heap.data();
  }
  for (int k = 0; k < n_in; ++k) ptrs[k] = &state->slots[item.input_slots[k]];
  for (int k : item.ref_inputs) {
    if (ptrs[k]->IsUninitializedRef()) {
      return UninitializedRefError(*ptrs[k], item.node->name());
    }
  }
  OpKernelContext ctx(ParamsFor(state, i, absl::Span<const Tensor* const>(ptrs, n_in)));
  if (state->collector != nullptr && state->collector->trace_nodes()) {
    NodeExecStats stats;
    stats.node_name = item.node->name();
    stats.op = item.node->op();
    stats.all_start_micros = absl::ToUnixMicros(absl::Now());
    absl::Status s = item.kernel->Compute(&ctx);
    stats.all_end_rel_micros =
        absl::ToUnixMicros(absl::Now()) - stats.all_start_micros;
    state->collector->AddNodeStats(std::move(stats));
    RETURN_IF_ERROR(s);
  } else {
    RETURN_IF_ERROR(item.kernel->Compute(&ctx));
  }
  for (int k = 0; k < item.node->num_outputs(); ++k) {
    if (!state->slots[item.output_base + k].IsInitialized()) {
      return absl::InternalError(absl::StrCat(
          "kernel of node '", item.node->name(), "' (op: '", item.node->op(),
          "') did not set output ", k));
    }
  }
  return absl::OkStatus();
}

absl::Status Executor::RunSequential(RunState* state) const {
  for (int i = 0; i < static_cast<int>(items_.size()); ++i) {
    RETURN_IF_ERROR(ComputeItem(state, i));
    for (int s : items_[i].release_after) state->slots[s] = Tensor();
  }
  return absl::OkStatus();
}

void Executor::Process(RunState* state, int first) const {
  std::deque<int> ready;
  ready.push_back(first);
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    if (!state->aborted.load(std::memory_order_relaxed)) {
      absl::Status s = ComputeItem(state, i);
      if (!s.ok()) {
        absl::MutexLock lock(&state->mu);
        if (state->status.ok()) state->status = std::move(s);
        state->aborted.store(true);
      }
    }
    // Release successors even after an error, so that the count of
    // outstanding items reaches zero and Run returns.
    bool kept_expensive = false;
    for (int s : items_[i].successors) {
      if (state->pending[s].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
      if (!items_[s].expensive || !kept_expensive || state->aborted.load()) {
        kept_expensive |= items_[s].expensive;
        ready.push_back(s);
      } else {
        device_->Schedule([this, state, s] { Process(state, s); });
      }
    }
    if (state->outstanding.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      state->done.Notify();
    }
  }
}

absl::Status Executor::RunParallel(RunState* state) const {
  state->pending.reset(new std::atomic<int>[items_.size()]);
  for (size_t i = 0; i < items_.size(); ++i) {
    state->pending[i].store(items_[i].num_predecessors, std::memory_order_relaxed);
  }
  state->outstanding.store(static_cast<int>(items_.size()));
  bool kept = false;
  std::vector<int> inline_roots;
  for (int r : roots_) {
    if (items_[r].expensive && kept) {
      device_->Schedule([this, state, r] { Process(state, r); });
    } else {
      kept |= items_[r].expensive;
      inline_roots.push_back(r);
    }
  }
  for (int r : inline_roots) Process(state, r);
  state->done.WaitForNotification();
  absl::MutexLock lock(&state->mu);
  return state->status;
}

absl::Status Executor::Run(const std::vector<Tensor>& feed_values,
                           std::vector<Tensor>* fetch_values,
                           RunCollector* collector, absl::Time deadline) const {
  RunState state;
  state.collector = collector;
  state.deadline = deadline;
  state.slots.resize(num_slots_);
  for (size_t k = 0; k < feed_values.size(); ++k) {
    state.slots[feed_slot_base_ + k] = feed_values[k];
  }
  if (!items_.empty()) {
    RETURN_IF_ERROR(parallel_ ? RunParallel(&state) : RunSequential(&state));
  }
  fetch_values->clear();
  fetch_values->reserve(fetch_slots_.size());
  for (int s : fetch_slots_) {
    if (state.slots[s].IsUninitializedRef()) {
      return UninitializedRefError(state.slots[s], "the fetch");
    }
    fetch_values->push_back(state.slots[s]);
  }
  return absl::OkStatus();
}

}  // namespace tensorflow_ipu
