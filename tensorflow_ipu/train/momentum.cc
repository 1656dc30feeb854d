#include "tensorflow_ipu/train/momentum.h"

#include "tensorflow_ipu/cc/ops/math_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace train {

absl::StatusOr<Operation> MomentumOptimizer::ApplyDense(const Scope& scope,
                                                        Output grad,
                                                        const Variable& var) {
  ASSIGN_OR_RETURN(Variable accum_var,
                   GetSlot(scope, var, "", initializers::Zeros()));
  const DataType t = var.dtype();
  Output accum = ops::Add(
      scope, ops::Mul(scope, accum_var.value(scope), Scalar(scope, momentum_, t)),
      grad);
  Operation store = accum_var.assign(scope, accum);
  Output lr = Scalar(scope, learning_rate_, t);
  Output step = use_nesterov_
                    ? ops::Add(scope, ops::Mul(scope, grad, lr),
                               ops::Mul(scope, accum,
                                        Scalar(scope, learning_rate_ * momentum_, t)))
                    : ops::Mul(scope, accum, lr).output;
  return var.assign_sub(scope.WithControlDependencies({store}), step);
}

}  // namespace train
}  // namespace tensorflow_ipu
