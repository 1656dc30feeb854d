#include "tensorflow_ipu/train/adam.h"

#include "tensorflow_ipu/cc/ops/math_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace train {

absl::Status AdamOptimizer::Prepare(const Scope& scope, const Variable& first) {
  ASSIGN_OR_RETURN(beta1_power_, GetNonSlot(scope, first, "beta1_power",
                                            initializers::Constant(beta1_)));
  ASSIGN_OR_RETURN(beta2_power_, GetNonSlot(scope, first, "beta2_power",
                                            initializers::Constant(beta2_)));
  const DataType t = first.dtype();
  Output one = Scalar(scope, 1.0, t);
  lr_t_ = ops::RealDiv(
      scope,
      ops::Mul(scope, Scalar(scope, learning_rate_, t),
               ops::Sqrt(scope, ops::Sub(scope, one, beta2_power_.value(scope)))),
      ops::Sub(scope, one, beta1_power_.value(scope)));
  return scope.status();
}

absl::StatusOr<Operation> AdamOptimizer::ApplyDense(const Scope& scope,
                                                    Output grad,
                                                    const Variable& var) {
  const DataType t = var.dtype();
  ASSIGN_OR_RETURN(Variable m_var, GetSlot(scope, var, "", initializers::Zeros()));
  ASSIGN_OR_RETURN(Variable v_var, GetSlot(scope, var, "1", initializers::Zeros()));
  Output m = ops::Add(
      scope, ops::Mul(scope, m_var.value(scope), Scalar(scope, beta1_, t)),
      ops::Mul(scope, grad, Scalar(scope, 1.0 - beta1_, t)));
  Output v = ops::Add(
      scope, ops::Mul(scope, v_var.value(scope), Scalar(scope, beta2_, t)),
      ops::Mul(scope, ops::Square(scope, grad), Scalar(scope, 1.0 - beta2_, t)));
  Operation store_m = m_var.assign(scope, m);
  Operation store_v = v_var.assign(scope, v);
  Output step = ops::RealDiv(
      scope, ops::Mul(scope, lr_t_, m),
      ops::Add(scope, ops::Sqrt(scope, v), Scalar(scope, epsilon_, t)));
  return var.assign_sub(scope.WithControlDependencies({store_m, store_v}), step);
}

absl::StatusOr<std::vector<Operation>> AdamOptimizer::FinishUpdates(
    const Scope& scope, const std::vector<Operation>& updates) {
  // The powers advance after every variable has used this step's values.
  Scope after = scope.WithControlDependencies(updates);
  const DataType t = beta1_power_.dtype();
  std::vector<Operation> step = updates;
  step.push_back(beta1_power_.assign(
      after, ops::Mul(after, beta1_power_.value(after), Scalar(after, beta1_, t))));
  step.push_back(beta2_power_.assign(
      after, ops::Mul(after, beta2_power_.value(after), Scalar(after, beta2_, t))));
  return step;
}

}  // namespace train
}  // namespace tensorflow_ipu
