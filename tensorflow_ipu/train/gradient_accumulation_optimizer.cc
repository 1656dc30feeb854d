#include "tensorflow_ipu/train/gradient_accumulation_optimizer.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace train {

using Reduction = GradientAccumulationReductionMethod;

absl::StatusOr<Operation> GradientAccumulationOptimizerV2::apply_gradients(
    const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
    const Variable* global_step) {
  RETURN_IF_ERROR(scope.status());
  if (num_mini_batches_ < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        name(), ": num_mini_batches must be at least 1, got ", num_mini_batches_));
  }
  if (grads_and_vars.empty()) return absl::InvalidArgumentError("No gradients to apply");
  const Scope body = scope.NewSubScope(name());
  // RUNNING_MEAN divides by k, the mini-batch's number in the window.
  Output k;
  std::vector<Operation> accumulated;
  std::optional<Variable> counter;
  if (reduction_ == Reduction::RUNNING_MEAN) {
    ASSIGN_OR_RETURN(counter, GetNonSlot(scope, grads_and_vars.front().second,
                                         name() + "/mini_batch", initializers::Zeros()));
    Operation next = counter->assign_add(body, Scalar(body, 1, counter->dtype()));
    k = counter->value(body.WithControlDependencies({next}));
    accumulated.push_back(next);
  }
  std::vector<Variable> accumulators;
  for (const auto& [grad, var] : grads_and_vars) {
    const DataType dtype = accumulator_dtype_ == DT_INVALID ? var.dtype() : accumulator_dtype_;
    ASSIGN_OR_RETURN(Variable acc, GetSlot(scope, var, "accum", initializers::Zeros(), dtype));
    Output g = grad.type() == dtype ? grad : ops::Cast(body, grad, dtype);
    if (reduction_ == Reduction::RUNNING_MEAN) {
      Output a = acc.value(body);
      Output kk = k.type() == dtype ? k : ops::Cast(body, k, dtype);
      accumulated.push_back(acc.assign(
          body, ops::Add(body, a, ops::RealDiv(body, ops::Sub(body, g, a), kk))));
    } else if (reduction_ == Reduction::MEAN) {
      accumulated.push_back(
          acc.assign_add(body, ops::Mul(body, g, Scalar(body, 1.0 / num_mini_batches_, dtype))));
    } else {
      accumulated.push_back(acc.assign_add(body, g));
    }
    accumulators.push_back(acc);
  }
  RETURN_IF_ERROR(body.status());

  // The update: marked, after this mini-batch's accumulation.
  const Scope update = scope.WithAttr(kGradientAccumulationAttr,
                                      MakeAttrValue(int64_t{num_mini_batches_}))
                           .WithControlDependencies(accumulated);
  const Scope u = update.NewSubScope(name());
  std::vector<GradAndVar> sums;
  for (size_t i = 0; i < grads_and_vars.size(); ++i) {
    const Variable& var = grads_and_vars[i].second;
    Output g = accumulators[i].value(u);
    if (g.type() != var.dtype()) g = ops::Cast(u, g, var.dtype());
    sums.emplace_back(g, var);
  }
  RETURN_IF_ERROR(u.status());
  ASSIGN_OR_RETURN(Operation step, wrapped().apply_gradients(update, sums, global_step));
  // Then the accumulators start again from zero.
  const Scope after = u.WithControlDependencies({step});
  std::vector<Operation> cleared;
  for (const Variable& acc : accumulators) {
    cleared.push_back(acc.assign(after, ops::ZerosLike(after, acc.value(after))));
  }
  if (counter.has_value()) {
    cleared.push_back(counter->assign(after, Scalar(after, 0, counter->dtype())));
  }
  Operation done = ops::NoOp(update.WithControlDependencies(cleared).WithOpName(name()));
  RETURN_IF_ERROR(scope.status());
  return done;
}

}  // namespace train
}  // namespace tensorflow_ipu
