// A dense layer's MatMul, BiasAdd and (optionally) Relu as one kernel run:
// out = relu(op(a) op(b) + bias), computed into the last node's output with
// the same arithmetic as the three kernels, without the two intermediate
// tensors or the executor's two extra steps. TensorFlow's CPU graph
// optimizer makes the same fusion (grappler's remapper: _FusedMatMul with
// fused_ops BiasAdd, Relu). The executor (runtime/bias_activation_fusion.h)
// decides when the nodes may run as one.
//
//   ASSIGN_OR_RETURN(bool done, MatMulBiasActivation(last_ctx, a, ta, b, tb, bias, true));
//   if (!done) { ... run MatMul, BiasAdd, Relu ... }
#ifndef TENSORFLOW_IPU_CORE_KERNELS_MATMUL_BIAS_ACTIVATION_H_
#define TENSORFLOW_IPU_CORE_KERNELS_MATMUL_BIAS_ACTIVATION_H_

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {

// `ctx` is the last node's (the Relu's, or the BiasAdd's when `relu` is
// false): its output 0 receives the result. a and b are the MatMul's
// operands, ta and tb its transpose attributes, bias the BiasAdd's input 1.
//
// Computes and returns true when every check of the kernels would pass:
// float matrices whose inner dimensions agree, a float vector bias with one
// value per column. Otherwise returns false having done nothing, and the
// caller runs the kernels, which report what is wrong in their own words.
absl::StatusOr<bool> MatMulBiasActivation(OpKernelContext* ctx, const Tensor& a, bool ta,
                                          const Tensor& b, bool tb, const Tensor& bias, bool relu);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_MATMUL_BIAS_ACTIVATION_H_
