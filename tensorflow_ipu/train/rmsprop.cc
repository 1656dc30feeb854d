#include "tensorflow_ipu/train/rmsprop.h"

#include "tensorflow_ipu/cc/ops/math_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace train {

absl::StatusOr<Operation> RMSPropOptimizer::ApplyDense(const Scope& scope,
                                                       Output grad,
                                                       const Variable& var) {
  const DataType t = var.dtype();
  ASSIGN_OR_RETURN(Variable ms_var, GetSlot(scope, var, "", initializers::Ones()));
  ASSIGN_OR_RETURN(Variable mom_var,
                   GetSlot(scope, var, "1", initializers::Zeros()));
  Output decay = Scalar(scope, decay_, t);
  Output one_minus = Scalar(scope, 1.0 - decay_, t);
  Output ms = ops::Add(scope, ops::Mul(scope, ms_var.value(scope), decay),
                       ops::Mul(scope, ops::Square(scope, grad), one_minus));
  std::vector<Operation> stores = {ms_var.assign(scope, ms)};
  Output denom = ms;
  if (centered_) {
    ASSIGN_OR_RETURN(Variable mg_var,
                     GetSlot(scope, var, "2", initializers::Zeros()));
    Output mg = ops::Add(scope, ops::Mul(scope, mg_var.value(scope), decay),
                         ops::Mul(scope, grad, one_minus));
    stores.push_back(mg_var.assign(scope, mg));
    denom = ops::Sub(scope, ms, ops::Square(scope, mg));
  }
  denom = ops::Add(scope, denom, Scalar(scope, epsilon_, t));
  Output mom = ops::Add(
      scope, ops::Mul(scope, mom_var.value(scope), Scalar(scope, momentum_, t)),
      ops::RealDiv(scope, ops::Mul(scope, grad, Scalar(scope, learning_rate_, t)),
                   ops::Sqrt(scope, denom)));
  stores.push_back(mom_var.assign(scope, mom));
  return var.assign_sub(scope.WithControlDependencies(stores), mom);
}

}  // namespace train
}  // namespace tensorflow_ipu
