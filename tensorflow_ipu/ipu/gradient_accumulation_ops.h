// ipu::ops::ipu_stateful_gradient_accumulate: the vendor's
// gen_poputil_ops.ipu_stateful_gradient_accumulate, the building block of
// its first GradientAccumulationOptimizer.
//
//   // in the body of ipu::loops::repeat(s, 10, ...):
//   Output sum = ipu::ops::ipu_stateful_gradient_accumulate(b, grad, 5);
//   opt.apply_gradients(b, {{sum, var}});   // every 5th iteration
//
// Every iteration adds `value` into an accumulator; the output is the sum of
// the last `num_mini_batches` values, and it and everything that depends on
// it run once every num_mini_batches iterations, after the last of them
// (the update phase of gradient accumulation, compiler/gradient_accumulation.h;
// a loop-carried value that depends on it changes then). The accumulator
// then starts again from zero.
//
// Errors when the cluster compiles (FailedPrecondition, as the vendor's
// verifier): outside a loop, or in a loop whose iterations are not a
// multiple of num_mini_batches; with verify_usage (the default), an output
// used by anything but an op that writes a variable (an optimizer's
// update): pass verify_usage = false to use the sum elsewhere.
#ifndef TENSORFLOW_IPU_IPU_GRADIENT_ACCUMULATION_OPS_H_
#define TENSORFLOW_IPU_IPU_GRADIENT_ACCUMULATION_OPS_H_

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"

namespace tensorflow_ipu {
namespace ipu {
namespace ops {

absl::StatusOr<Output> ipu_stateful_gradient_accumulate(const Scope& scope, Output value,
                                                        int num_mini_batches,
                                                        bool verify_usage = true);

}  // namespace ops
}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IPU_GRADIENT_ACCUMULATION_OPS_H_
