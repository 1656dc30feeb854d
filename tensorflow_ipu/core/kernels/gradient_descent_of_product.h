// A gradient-descent step taken inside the product that makes its gradient:
// var -= alpha * op(a) op(b), as one matrix product that adds into the
// variable (gemm.h: GemmScaledAdd), for the common case of a MatMul whose
// only use is a ResourceApplyGradientDescent (a dense layer's weight
// gradient). It saves writing the gradient to a buffer of its own and
// reading it back, which for the benchmark MLP's 784x256 weights is most of
// the update's time. The executor (runtime/gradient_update_fusion.h)
// decides when the two nodes may run as one.
//
//   ASSIGN_OR_RETURN(bool done, ApplyGradientDescentOfProduct(update_ctx, a, ta, b, tb));
//   if (!done) { ... run the MatMul, then the update ... }
#ifndef TENSORFLOW_IPU_CORE_KERNELS_GRADIENT_DESCENT_OF_PRODUCT_H_
#define TENSORFLOW_IPU_CORE_KERNELS_GRADIENT_DESCENT_OF_PRODUCT_H_

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {

// `ctx` is the ResourceApplyGradientDescent's (input 0 the variable's
// handle, input 1 alpha; input 2, the gradient, is not read); a and b are
// the MatMul's operands, ta and tb its transpose attributes.
//
// Applies the step and returns true when every check of the two kernels
// would pass and the step can be taken this way: float operands, variable
// and alpha, matrices whose product has the variable's shape, an
// initialised variable. Otherwise returns false having changed nothing, and
// the caller runs the two kernels (which report what is wrong in their own
// words). Reads of the variable still in use keep their value: the product
// goes into a new buffer when the old one is shared. Errors are those of the
// variable's update (e.g. bringing its value back from a device).
absl::StatusOr<bool> ApplyGradientDescentOfProduct(OpKernelContext* ctx, const Tensor& a, bool ta,
                                                   const Tensor& b, bool tb);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_GRADIENT_DESCENT_OF_PRODUCT_H_
