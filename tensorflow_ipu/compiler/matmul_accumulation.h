// MatMulAccumulation: a matrix product whose only use is to be added to a
// variable is computed into the variable (poplin::matMulAcc), as XLA fuses
// a dot with the add that consumes it. Gradient accumulation adds each
// mini-batch's weight gradient to its accumulator
// (GradientAccumulationOptimizerV2: acc.assign_add(grad)), and plain SGD
// subtracts it, scaled, from the weights (ResourceApplyGradientDescent);
// fused, the gradient is never stored and read back (the CPU executor
// fuses the SGD step the same way: runtime/gradient_update_fusion.h).
//
// Rewrites, for a float scalar constant c (the MEAN reduction's 1 / N) and
// a float scalar constant learning rate alpha,
//   AssignAddVariableOp(var, MatMul(a, b))            var += a b
//   AssignAddVariableOp(var, Mul(MatMul(a, b), c))    var += c a b
//   ResourceApplyGradientDescent(var, alpha, MatMul(a, b) [times c])
//                                                     var -= alpha [c] a b
// when
//  - the product's (and the Mul's) value has no other reader and is not a
//    result,
//  - both are float, on one IPU, in one loop, the same pipeline unit and
//    the same phase of gradient accumulation (the pass runs after the
//    gradient-accumulation and pipeline-formation passes);
// into the same op with the product's operands in place of its value
// (AssignAddVariableOp(var, a, b), ResourceApplyGradientDescent(var,
// alpha, a, b)) and the attrs kAccumulatesMatMulAttr (the product's name,
// for dumps), "transpose_a"/"transpose_b" copied from the product and
// kAccumulateScaleAttr (1, c, -alpha or -alpha c), which its lowering
// emits as var += scale op(a) op(b). The product (and the Mul) becomes a
// NoOp that keeps its name, attrs and control inputs, so that ops waiting
// for it still wait; the add also waits for what they waited for.
#ifndef TENSORFLOW_IPU_COMPILER_MATMUL_ACCUMULATION_H_
#define TENSORFLOW_IPU_COMPILER_MATMUL_ACCUMULATION_H_

#include "tensorflow_ipu/compiler/pass.h"

namespace tensorflow_ipu {
namespace compiler {

// On a rewritten op: it adds the product of its last two inputs,
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
