#include "tensorflow_ipu/runtime/bias_activation_fusion.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"

namespace tensorflow_ipu {
namespace {

bool IsFusable(const Node* n) { return n->op() == "MatMul" || n->op() == "BiasAdd"; }

}  // namespace

std::vector<BiasActivationFusion> FindBiasActivationFusions(const std::vector<const Node*>& nodes,
                                                            const std::vector<TensorRef>& feeds,
                                                            const std::vector<TensorRef>& fetches) {
  std::vector<BiasActivationFusion> fusions;
  if (std::none_of(nodes.begin(), nodes.end(),
                   [](const Node* n) { return n->op() == "BiasAdd"; })) {
    return fusions;
  }
  // Node id -> position; for MatMul and BiasAdd nodes, how often the run
  // reads their outputs or waits for them, and the position of a reader.
  absl::flat_hash_map<int, int> position, uses, reader;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) position[nodes[i]->id()] = i;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    for (const TensorRef& in : nodes[i]->inputs()) {
      if (!IsFusable(in.node)) continue;
      // Any output but the first is a use that keeps the node.
      uses[in.node->id()] += in.index == 0 ? 1 : 2;
      reader[in.node->id()] = i;
    }
    for (const Node* c : nodes[i]->control_inputs()) {
      if (IsFusable(c)) uses[c->id()] += 2;
    }
  }
  for (const TensorRef& f : fetches) {
    if (IsFusable(f.node)) uses[f.node->id()] += 2;
  }
  auto only_read_by = [&](const Node* n, int consumer) {
    return uses[n->id()] == 1 && reader[n->id()] == consumer &&
           !IsFed(feeds, TensorRef{const_cast<Node*>(n), 0});
  };
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const Node* bias_add = nodes[i];
    if (bias_add->op() != "BiasAdd" || bias_add->num_inputs() != 2) continue;
    const TensorRef value = bias_add->input(0);
    const Node* product = value.node;
    if (product->op() != "MatMul" || value.index != 0 || !only_read_by(product, i)) continue;
    if (product->output_type(0) != DT_FLOAT || bias_add->output_type(0) != DT_FLOAT) continue;
    auto p = position.find(product->id());
    if (p == position.end()) continue;
    absl::StatusOr<bool> ta = GetNodeAttr<bool>(product->def(), "transpose_a");
    absl::StatusOr<bool> tb = GetNodeAttr<bool>(product->def(), "transpose_b");
    if (!ta.ok() || !tb.ok()) continue;
    BiasActivationFusion f{p->second, i, -1, *ta, *tb};
    if (uses[bias_add->id()] == 1) {
      const int r = reader[bias_add->id()];
      const Node* relu = nodes[r];
      if (relu->op() == "Relu" && relu->num_inputs() == 1 && relu->input(0).node == bias_add &&
          relu->output_type(0) == DT_FLOAT && only_read_by(bias_add, r)) {
        f.relu = r;
      }
    }
    fusions.push_back(f);
  }
  return fusions;
}

}  // namespace tensorflow_ipu
