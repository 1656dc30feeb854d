#include "tensorflow_ipu/compiler/matmul_accumulation.h"

#include <optional>
#include <vector>

#include "tensorflow_ipu/compiler/loop_formation.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

// How many times each op's output 0 is read, as an input or a result.
std::vector<int> ReadersOfFirstOutput(const ClusterIr& ir) {
  std::vector<int> readers(ir.ops.size(), 0);
  for (const ClusterOp& op : ir.ops) {
    for (const ValueRef& v : op.inputs) {
      if (v.index == 0) ++readers[v.op];
    }
  }
  for (const ValueRef& r : ir.results) {
    if (r.index == 0) ++readers[r.op];
  }
  return readers;
}

bool SamePlaceAndPhase(const ClusterOp& a, const ClusterOp& b) {
  return a.shard == b.shard && LoopOf(a) == LoopOf(b) && a.pipeline_unit == b.pipeline_unit &&
         a.accumulation_count == b.accumulation_count && a.after_update == b.after_update;
}

}  // namespace

absl::StatusOr<bool> MatMulAccumulation::Run(ClusterIr* ir) {
  const std::vector<int> readers = ReadersOfFirstOutput(*ir);
  // The op producing `v` if `v` is its only output and `v` has no reader
  // but the one asking, in the same place and phase as `user`.
  auto sole_producer = [&](const ValueRef& v, const ClusterOp& user,
                           absl::string_view kind) -> ClusterOp* {
    if (v.index != 0 || readers[v.op] != 1) return nullptr;
    ClusterOp& op = ir->ops[v.op];
    if (op.op() != kind || op.inputs.size() != 2 || op.output_types.size() != 1 ||
        op.output_types[0] != DT_FLOAT || op.pipeline_invariant || !SamePlaceAndPhase(op, user)) {
      return nullptr;
    }
    return &op;
  };
  // A float scalar constant's value.
  auto scalar = [&](const ValueRef& v) -> std::optional<float> {
    const ClusterOp& op = ir->ops[v.op];
    if (op.op() != "Const" || !op.constant.IsInitialized() || op.constant.dtype() != DT_FLOAT ||
        op.constant.NumElements() != 1) {
      return std::nullopt;
    }
    return op.constant.data<float>()[0];
  };
  bool changed = false;
  for (ClusterOp& add : ir->ops) {
    // The input holding the value added, and what it is multiplied by:
    // AssignAddVariableOp(var, value) adds it; ResourceApplyGradientDescent
    // (var, alpha, value) subtracts alpha times it, for a constant alpha.
    int value_input = -1;
    float scale = 1.0f;
    if (add.op() == "AssignAddVariableOp" && add.inputs.size() == 2) {
      value_input = 1;
    } else if (add.op() == "ResourceApplyGradientDescent" && add.inputs.size() == 3) {
      if (std::optional<float> alpha = scalar(add.inputs[1]); alpha.has_value()) {
        value_input = 2;
        scale = -*alpha;
      }
    }
    if (value_input < 0) continue;
    // The value: a product, or a product times a scalar constant
    // (GradientAccumulationOptimizerV2's MEAN).
    const ValueRef value = add.inputs[value_input];
    ClusterOp* mul = sole_producer(value, add, "Mul");
    ClusterOp* product = nullptr;
    if (mul != nullptr) {
      for (int side : {0, 1}) {
        std::optional<float> s = scalar(mul->inputs[1 - side]);
        if (!s.has_value()) continue;
        product = sole_producer(mul->inputs[side], *mul, "MatMul");
        if (product != nullptr) {
          scale *= *s;
          break;
        }
      }
    } else {
      product = sole_producer(value, add, "MatMul");
    }
    if (product == nullptr) continue;
    auto& attrs = *add.def.mutable_attr();
    for (const char* t : {"transpose_a", "transpose_b"}) {
      auto it = product->def.attr().find(t);
      attrs[t] = it == product->def.attr().end() ? MakeAttrValue(false) : it->second;
    }
    attrs[kAccumulatesMatMulAttr] = MakeAttrValue(product->name());
    attrs[kAccumulateScaleAttr] = MakeAttrValue(scale);
    add.inputs.resize(value_input);
    add.inputs.push_back(product->inputs[0]);
    add.inputs.push_back(product->inputs[1]);
    for (ClusterOp* folded : {product, mul}) {
      if (folded == nullptr) continue;
      add.control_inputs.insert(add.control_inputs.end(), folded->control_inputs.begin(),
                                folded->control_inputs.end());
      folded->def.set_op("NoOp");
      folded->inputs.clear();
      folded->output_types.clear();
      folded->output_shapes.clear();
    }
    changed = true;
  }
  return changed;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
