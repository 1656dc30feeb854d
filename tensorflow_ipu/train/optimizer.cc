#include "tensorflow_ipu/train/optimizer.h"

#include "Eigen/Core"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/gradients/gradients.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace train {
namespace {

// A scope that builds beside `var`: its device and IPU attrs (shard), none
// of the caller's, no control dependencies, names under `prefix`.
Scope BesideVariable(const Scope& scope, const Variable& var,
                     const std::string& prefix) {
  Scope s = scope.WithAbsoluteNameScope(prefix)
                .WithNoControlDependencies()
                .WithoutAttrs();
  const NodeDef& def = var.handle().node()->def();
  s = s.WithDevice(def.device());
  for (const auto& [name, value] : def.attr()) {
    if (!name.empty() && name[0] == '_') s = s.WithAttr(name, value);
  }
  return s;
}

// Nodes `loss` depends on (iteratively, for deep graphs).
absl::flat_hash_set<const Node*> Ancestors(const Node* loss) {
  absl::flat_hash_set<const Node*> seen = {loss};
  std::vector<const Node*> stack = {loss};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const TensorRef& in : n->inputs()) {
      if (seen.insert(in.node).second) stack.push_back(in.node);
    }
    for (const Node* c : n->control_inputs()) {
      if (seen.insert(c).second) stack.push_back(c);
    }
  }
  return seen;
}

}  // namespace

Output Optimizer::Scalar(const Scope& scope, double value, DataType dtype) {
  Tensor t(dtype, TensorShape());
  scope.UpdateStatus(SwitchOnType(dtype, [&](auto v) -> absl::Status {
    using T = decltype(v);
    t.data<T>()[0] = static_cast<T>(value);
    return absl::OkStatus();
  }));
  return ops::Const(scope, t);
}

absl::StatusOr<Variable> Optimizer::GetNonSlot(const Scope& scope,
                                               const Variable& var,
                                               const std::string& name,
                                               Initializer initializer) {
  Scope beside = BesideVariable(scope, var, "");
  VariableScope vs(beside, "", {.use_resource = true, .reuse = Reuse::kAutoReuse});
  return vs.get_variable(name, TensorShape(), var.dtype(), std::move(initializer),
                         /*trainable=*/false);
}

absl::StatusOr<Variable> Optimizer::GetSlot(const Scope& scope,
                                            const Variable& var,
                                            const std::string& suffix,
                                            Initializer initializer, DataType dtype) {
  Scope beside = BesideVariable(scope, var, var.name());
  VariableScope vs(beside.WithAbsoluteNameScope(""), var.name(),
                   {.use_resource = true, .reuse = Reuse::kAutoReuse});
  return vs.get_variable(suffix.empty() ? name_ : absl::StrCat(name_, "_", suffix),
                         var.shape(), dtype == DT_INVALID ? var.dtype() : dtype,
                         std::move(initializer),
                         /*trainable=*/false);
}

absl::StatusOr<std::vector<GradAndVar>> Optimizer::compute_gradients(
    const Scope& scope, Output loss, std::vector<Variable> var_list) {
  RETURN_IF_ERROR(scope.status());
  if (var_list.empty()) {
    ASSIGN_OR_RETURN(var_list,
                     VariablesInCollection(scope, kTrainableVariablesCollection));
  }
  // A variable enters the loss through its reads (resource) or its
  // reference itself; gradients of several reads are added.
  const absl::flat_hash_set<const Node*> ancestors = Ancestors(loss.node());
  std::vector<Output> xs;
  std::vector<std::pair<size_t, size_t>> ranges;  // per var: [begin, end) of xs
  for (const Variable& v : var_list) {
    const size_t begin = xs.size();
    if (!v.is_resource()) {
      if (ancestors.contains(v.handle().node())) xs.push_back(v.handle());
    } else {
      for (Node* c : v.handle().node()->data_consumers()) {
        if (c->op() == "ReadVariableOp" && ancestors.contains(c)) {
          xs.push_back(Output(c, 0));
        }
      }
    }
    ranges.emplace_back(begin, xs.size());
  }
  if (xs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "No gradients provided for any variable: the loss '",
        loss.node()->name(), "' depends on none of the ", var_list.size(),
        " variable(s)"));
  }
  std::vector<Output> grads;
  RETURN_IF_ERROR(AddSymbolicGradients(scope, {loss}, xs, &grads));
  std::vector<GradAndVar> out;
  for (size_t k = 0; k < var_list.size(); ++k) {
    auto [begin, end] = ranges[k];
    if (begin == end) continue;
    Output g = grads[begin];
    for (size_t i = begin + 1; i < end; ++i) g = ops::Add(scope, g, grads[i]);
    out.emplace_back(g, var_list[k]);
  }
  RETURN_IF_ERROR(scope.status());
  return out;
}

absl::StatusOr<Operation> Optimizer::apply_gradients(
    const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
    const Variable* global_step) {
  if (grads_and_vars.empty()) {
    return absl::InvalidArgumentError("No gradients to apply");
  }
  RETURN_IF_ERROR(Prepare(scope, grads_and_vars.front().second));
  std::vector<Operation> updates;
  for (const auto& [grad, var] : grads_and_vars) {
    ASSIGN_OR_RETURN(Operation u,
                     ApplyDense(scope.NewSubScope(name_), grad, var));
    updates.push_back(u);
  }
  ASSIGN_OR_RETURN(std::vector<Operation> step, FinishUpdates(scope, updates));
  if (global_step != nullptr) {
    // Where global_step lives, after the updates, outside any cluster of
    // the caller's scope. In the body of an on-device loop it runs once per
    // Run of the loop, adding the loop's iteration count (it cannot leave
    // the device each iteration), so it still counts steps.
    Scope inc = BesideVariable(scope, *global_step, "")
                    .WithControlDependencies(step)
                    .WithOpName(absl::StrCat(name_, "/increment_global_step"));
    // Under gradient accumulation the update runs once every N iterations,
    // so a loop's Run makes iterations / N steps.
    const AttrValue* loop = scope.FindAttr(kLoopAttr);
    const AttrValue* count = scope.FindAttr(kLoopCountAttr);
    const AttrValue* accumulation = scope.FindAttr(kGradientAccumulationAttr);
    int64_t steps = count != nullptr ? count->i() : 1;
    if (accumulation != nullptr && accumulation->i() > 0) steps /= accumulation->i();
    Operation increment = global_step->assign_add(inc, Scalar(inc, steps, DT_INT64));
    if (loop != nullptr) {
      scope.graph()->AddToCollection(
          absl::StrCat(kLoopSideEffectsPrefix, loop->s()), increment.name());
    } else {
      step.push_back(increment);
    }
  }
  Operation done = ops::NoOp(scope.WithControlDependencies(step).WithOpName(name_));
  RETURN_IF_ERROR(scope.status());
  return done;
}

absl::StatusOr<Operation> OptimizerWrapper::ApplyDense(const Scope&, Output,
                                                      const Variable& var) {
  return absl::InternalError(absl::StrCat(name(), "::ApplyDense for variable ", var.name(),
                                          ": the wrapped optimizer applies updates"));
}

absl::StatusOr<Operation> Optimizer::minimize(const Scope& scope, Output loss,
                                              const Variable* global_step,
                                              std::vector<Variable> var_list) {
  ASSIGN_OR_RETURN(std::vector<GradAndVar> gv,
                   compute_gradients(scope, loss, std::move(var_list)));
  return apply_gradients(scope, gv, global_step);
}

}  // namespace train
}  // namespace tensorflow_ipu
