// MatMulAccumulation: a matrix product whose only use is to be added to a
// variable is computed into the variable (poplin::matMulAcc), as XLA fuses
// a dot with the add that consumes it. Gradient accumulation adds each
// mini-batch's weight gradient to its accumulator
// (GradientAccumulationOptimizerV2: acc.assign_add(grad)); fused, the
// gradient is never stored and read back.
//
// Rewrites AssignAddVariableOp(var, MatMul(a, b)), and
// AssignAddVariableOp(var, Mul(MatMul(a, b), c)) for a float scalar
// constant c (the MEAN reduction's 1 / N), when
//  - the product's (and the Mul's) value has no other reader and is not a
//    result,
//  - both are float, on one IPU, in one loop, the same pipeline unit and
//    the same phase of gradient accumulation (the pass runs after the
//    gradient-accumulation and pipeline-formation passes);
// into AssignAddVariableOp(var, a, b) with the attrs
// kAccumulatesMatMulAttr (the product's name, for dumps) and
// "transpose_a"/"transpose_b" copied from the product and
// kAccumulateScaleAttr (c, or 1), which its lowering emits as
// var += c op(a) op(b). The product (and the Mul) becomes a NoOp that keeps its
// name, attrs and control inputs, so that ops waiting for it still wait;
// the add also waits for what the product waited for.
#ifndef TENSORFLOW_IPU_COMPILER_MATMUL_ACCUMULATION_H_
#define TENSORFLOW_IPU_COMPILER_MATMUL_ACCUMULATION_H_

#include "tensorflow_ipu/compiler/pass.h"

namespace tensorflow_ipu {
namespace compiler {

// On an AssignAddVariableOp: it adds the product of its inputs 1 and 2.
inline constexpr char kAccumulatesMatMulAttr[] = "_ipu_accumulates_matmul";
// ... scaled by this float.
inline constexpr char kAccumulateScaleAttr[] = "_ipu_accumulate_scale";

class MatMulAccumulation : public ClusterPass {
 public:
  absl::string_view name() const override { return "matmul-accumulation"; }
  absl::StatusOr<bool> Run(ClusterIr* ir) override;
};

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_MATMUL_ACCUMULATION_H_
