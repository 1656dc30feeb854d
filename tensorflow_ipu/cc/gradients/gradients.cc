#include "tensorflow_ipu/cc/gradients/gradients.h"

#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/gradients/grad_registry.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

using TensorKey = std::pair<int, int>;  // node id, output index

TensorKey KeyOf(const Output& o) { return {o.node()->id(), o.index()}; }

// Nodes on some path from an input to an output (node ids are topological,
// so one forward sweep and one backward sweep find them without recursion).
absl::flat_hash_set<int> NodesBetween(const Graph& graph,
                                      const std::vector<Output>& inputs,
                                      const std::vector<Output>& outputs) {
  std::vector<bool> from_inputs(graph.num_nodes(), false);
  for (const Output& in : inputs) from_inputs[in.node()->id()] = true;
  int first = graph.num_nodes();
  for (const Output& in : inputs) first = std::min(first, in.node()->id());
  for (int id = first; id < graph.num_nodes(); ++id) {
    if (from_inputs[id]) continue;
    for (const TensorRef& r : graph.node(id)->inputs()) {
      if (from_inputs[r.node->id()]) {
        from_inputs[id] = true;
        break;
      }
    }
  }
  std::vector<bool> to_outputs(graph.num_nodes(), false);
  int last = -1;
  for (const Output& out : outputs) {
    to_outputs[out.node()->id()] = true;
    last = std::max(last, out.node()->id());
  }
  for (int id = last; id >= 0; --id) {
    if (!to_outputs[id]) continue;
    for (const TensorRef& r : graph.node(id)->inputs()) {
      to_outputs[r.node->id()] = true;
    }
  }
  absl::flat_hash_set<int> between;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (from_inputs[id] && to_outputs[id]) between.insert(id);
  }
  return between;
}

// A gradient op runs where its forward op does: on its IPU (as the vendor's
// ipu_shard wraps gradient functions) and, in a pipeline, in its stage's
// backward pass (pipelining/pipelining_ops.h).
Scope WithForwardPlacement(Scope scope, const Node& forward) {
  const auto& attrs = forward.def().attr();
  if (auto it = attrs.find(kShardAttr); it != attrs.end()) {
    scope = scope.WithAttr(kShardAttr, it->second);
  }
  if (auto it = attrs.find(kPipelineStageAttr); it != attrs.end()) {
    scope = scope.WithAttr(kPipelineStageAttr, it->second)
                .WithAttr(kPipelineBackwardAttr, MakeAttrValue(true));
  }
  return scope;
}

// Sums the gradients arriving at one tensor.
Output SumGradients(const Scope& scope, const std::vector<Output>& grads) {
  Output total = grads[0];
  for (size_t i = 1; i < grads.size(); ++i) {
    total = ops::AddV2(scope, total, grads[i]);
  }
  return total;
}

}  // namespace

absl::Status AddSymbolicGradients(const Scope& scope,
                                  const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  std::vector<Output>* grad_inputs) {
  std::vector<Output> seeds;
  Scope seed_scope = scope.NewSubScope("gradients");
  for (const Output& o : outputs) seeds.push_back(ops::OnesLike(seed_scope, o));
  RETURN_IF_ERROR(scope.status());
  return AddSymbolicGradients(scope, outputs, inputs, seeds, grad_inputs);
}

absl::Status AddSymbolicGradients(const Scope& scope,
                                  const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  const std::vector<Output>& grad_seeds,
                                  std::vector<Output>* grad_inputs) {
  RETURN_IF_ERROR(scope.status());
  if (outputs.size() != grad_seeds.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AddSymbolicGradients: ", outputs.size(), " outputs but ",
        grad_seeds.size(), " gradient seeds"));
  }
  for (const Output& o : outputs) {
    if (!o.valid()) return absl::InvalidArgumentError("an output is invalid");
  }
  for (const Output& in : inputs) {
    if (!in.valid()) return absl::InvalidArgumentError("an input is invalid");
  }
  Scope grad_scope = scope.NewSubScope("gradients");
  const Graph& graph = *scope.graph();
  absl::flat_hash_set<int> between = NodesBetween(graph, inputs, outputs);

  // Gradients arriving at each tensor, summed when the node is processed.
  std::map<TensorKey, std::vector<Output>> pending;
  for (size_t i = 0; i < outputs.size(); ++i) {
    pending[KeyOf(outputs[i])].push_back(grad_seeds[i]);
  }
  absl::flat_hash_set<TensorKey> wanted;
  for (const Output& in : inputs) wanted.insert(KeyOf(in));
  std::map<TensorKey, Output> final_grads;

  int last = -1;
  for (const Output& o : outputs) last = std::max(last, o.node()->id());
  for (int id = last; id >= 0; --id) {
    Node* node = graph.node(id);
    // Collect this node's output gradients.
    std::vector<Output> grad_outputs(node->num_outputs());
    bool any = false;
    for (int k = 0; k < node->num_outputs(); ++k) {
      auto it = pending.find({id, k});
      if (it == pending.end()) continue;
      grad_outputs[k] = SumGradients(grad_scope, it->second);
      pending.erase(it);
      any = true;
      if (wanted.contains(TensorKey{id, k})) final_grads[{id, k}] = grad_outputs[k];
    }
    if (!any || !between.contains(id)) continue;
    // Stop at the requested inputs: nothing upstream of them is wanted
    // unless another input lies further up.
    bool needs_upstream = false;
    for (const TensorRef& r : node->inputs()) {
      needs_upstream |= between.contains(r.node->id());
    }
    if (!needs_upstream) continue;
    ASSIGN_OR_RETURN(const GradFunc* fn,
                     GradOpRegistry::Global()->Lookup(node->op()));
    if (fn == nullptr) continue;  // no gradient flows through this op
    for (int k = 0; k < node->num_outputs(); ++k) {
      if (!grad_outputs[k].valid()) {
        grad_outputs[k] = ops::ZerosLike(grad_scope, Output(node, k));
      }
    }
    std::vector<Output> grad_in;
    const Scope op_scope =
        WithForwardPlacement(grad_scope.NewSubScope(node->name() + "_grad"), *node);
    RETURN_IF_ERROR((*fn)(op_scope, Operation(node), grad_outputs, &grad_in));
    RETURN_IF_ERROR(scope.status());
    if (static_cast<int>(grad_in.size()) != node->num_inputs()) {
      return absl::InternalError(absl::StrCat(
          "gradient of op '", node->op(), "' returned ", grad_in.size(),
          " gradients for ", node->num_inputs(), " inputs"));
    }
    for (int i = 0; i < node->num_inputs(); ++i) {
      if (!grad_in[i].valid()) continue;
      const TensorRef& r = node->input(i);
      if (!between.contains(r.node->id())) continue;
      pending[{r.node->id(), r.index}].push_back(grad_in[i]);
    }
  }

  grad_inputs->clear();
  for (const Output& in : inputs) {
    auto it = final_grads.find(KeyOf(in));
    if (it != final_grads.end()) {
      grad_inputs->push_back(it->second);
    } else {
      grad_inputs->push_back(ops::ZerosLike(grad_scope, in));
    }
  }
  return scope.status();
}

}  // namespace tensorflow_ipu
