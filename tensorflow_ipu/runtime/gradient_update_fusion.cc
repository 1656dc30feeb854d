#include "tensorflow_ipu/runtime/gradient_update_fusion.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"

namespace tensorflow_ipu {

std::vector<GradientUpdateFusion> FindGradientUpdateFusions(const std::vector<const Node*>& nodes,
                                                            const std::vector<TensorRef>& feeds,
                                                            const std::vector<TensorRef>& fetches) {
  std::vector<GradientUpdateFusion> fusions;
  // Most runs (inference, initialisation) have no update: nothing to index.
  if (std::none_of(nodes.begin(), nodes.end(), [](const Node* n) {
        return n->op() == "ResourceApplyGradientDescent";
      })) {
    return fusions;
  }
  // Node id -> position, and how often the run reads each MatMul's output
  // or waits for the MatMul.
  absl::flat_hash_map<int, int> position;
  absl::flat_hash_map<int, int> uses;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    position[nodes[i]->id()] = i;
  }
  for (const Node* n : nodes) {
    for (const TensorRef& in : n->inputs()) {
      if (in.node->op() == "MatMul") ++uses[in.node->id()];
    }
    for (const Node* c : n->control_inputs()) {
      if (c->op() == "MatMul") uses[c->id()] += 2;  // never fused
    }
  }
  for (const TensorRef& f : fetches) {
    if (f.node->op() == "MatMul") uses[f.node->id()] += 2;
  }
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const Node* update = nodes[i];
    if (update->op() != "ResourceApplyGradientDescent" || update->num_inputs() != 3) continue;
    const TensorRef gradient = update->input(2);
    const Node* product = gradient.node;
    if (product->op() != "MatMul" || gradient.index != 0 || IsFed(feeds, gradient)) continue;
    if (product->output_type(0) != DT_FLOAT || update->input_type(2) != DT_FLOAT) continue;
    auto p = position.find(product->id());
    if (p == position.end() || uses[product->id()] != 1) continue;
    absl::StatusOr<bool> ta = GetNodeAttr<bool>(product->def(), "transpose_a");
    absl::StatusOr<bool> tb = GetNodeAttr<bool>(product->def(), "transpose_b");
    if (!ta.ok() || !tb.ok()) continue;
    fusions.push_back({p->second, i, *ta, *tb});
  }
  return fusions;
}

}  // namespace tensorflow_ipu
