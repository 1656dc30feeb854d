#include "tensorflow_ipu/runtime/constant_folding.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"

namespace tensorflow_ipu {
namespace {

// Ops whose CPU kernels compute their outputs from their inputs and
// attributes alone: no state, no randomness, no resources, no side effect.
// The dense-layer ops (MatMul, BiasAdd, Relu, ReluGrad) are left out: the
// executor fuses those (bias_activation_fusion.h, relu_grad_fusion.h).
bool IsFoldableOp(const std::string& op) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "Const",    "Identity", "OnesLike", "ZerosLike", "Shape",   "Size",  "Rank",
      "Reshape",  "ExpandDims", "Squeeze", "Fill",     "Cast",    "Add",   "AddV2",
      "Sub",      "Mul",      "RealDiv",  "Neg",       "Maximum", "Minimum", "Pack",
      "ConcatV2", "Tile"};
  return ops->contains(op);
}

// Ops that read their input's shape and dtype, not its values.
bool ReadsOnlyShape(const std::string& op) {
  return op == "OnesLike" || op == "ZerosLike" || op == "Shape" || op == "Size" || op == "Rank";
}

}  // namespace

std::vector<ConstantFold> FindConstantFolds(const std::vector<const Node*>& nodes,
                                            const std::vector<TensorRef>& feeds) {
  std::vector<ConstantFold> folds;
  absl::flat_hash_set<int> constant;  // ids of the nodes folded so far
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const Node* n = nodes[i];
    if (!IsFoldableOp(n->op()) || !n->control_inputs().empty()) continue;
    ConstantFold fold{i, {}};
    bool foldable = true;
    for (int k = 0; k < n->num_inputs() && foldable; ++k) {
      const TensorRef& in = n->input(k);
      const bool fed = IsFed(feeds, in);
      if (!fed && constant.contains(in.node->id())) continue;
      if (ReadsOnlyShape(n->op()) && in.node->output_shape(in.index).IsFullyDefined()) {
        fold.shape_inputs.push_back(k);
        continue;
      }
      foldable = false;
    }
    if (!foldable) continue;
    constant.insert(n->id());
    folds.push_back(std::move(fold));
  }
  return folds;
}

}  // namespace tensorflow_ipu
