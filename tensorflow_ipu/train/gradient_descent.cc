#include "tensorflow_ipu/train/gradient_descent.h"

#include "tensorflow_ipu/cc/ops/math_ops.h"
#include "tensorflow_ipu/cc/ops/resource_variable_ops.h"

namespace tensorflow_ipu {
namespace train {

absl::StatusOr<Operation> GradientDescentOptimizer::ApplyDense(
    const Scope& scope, Output grad, const Variable& var) {
  // Resource variables take TensorFlow's fused update: one pass over the
  // variable instead of a multiply and a subtraction.
  if (var.is_resource()) {
    return ops::ResourceApplyGradientDescent(
               scope, var.handle(), Scalar(scope, learning_rate_, var.dtype()), grad)
        .operation;
  }
  Output step = ops::Mul(scope, grad, Scalar(scope, learning_rate_, var.dtype()));
  return var.assign_sub(scope, step);
}

}  // namespace train
}  // namespace tensorflow_ipu
