#include "tensorflow_ipu/train/gradient_descent.h"

#include "tensorflow_ipu/cc/ops/math_ops.h"

namespace tensorflow_ipu {
namespace train {

absl::StatusOr<Operation> GradientDescentOptimizer::ApplyDense(
    const Scope& scope, Output grad, const Variable& var) {
  Output step = ops::Mul(scope, grad, Scalar(scope, learning_rate_, var.dtype()));
  return var.assign_sub(scope, step);
}

}  // namespace train
}  // namespace tensorflow_ipu
