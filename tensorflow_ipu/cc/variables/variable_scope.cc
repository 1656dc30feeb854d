#include "tensorflow_ipu/cc/variables/variable_scope.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/cc/ops/resource_variable_ops.h"
#include "tensorflow_ipu/cc/ops/state_ops.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

std::string Join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : absl::StrCat(prefix, "/", name);
}

// Where initial values are computed: the host, outside any IPU cluster or
// control dependency of the caller's scope.
Scope InitialValueScope(const Scope& scope, const std::string& prefix) {
  return scope.WithAbsoluteNameScope(prefix)
      .WithDevice("/device:CPU:0")
      .WithNoControlDependencies()
      .WithoutAttrs();
}

// A variable made inside a loop body (a TF1 model function that builds its
// layers there) belongs to no loop: its handle names the same variable in
// every iteration, and its initializer runs once, when the user runs it,
// not in every iteration as the body's side effects do. It keeps its
// device and IPU shard.
Scope OutsideLoops(Scope scope) {
  for (const char* attr : {kLoopAttr, kLoopCountAttr, kGradientAccumulationAttr,
                           kPipelineDepthAttr, kPipelineStagesAttr, kPipelineScheduleAttr,
                           kPipelineStageAttr, kPipelineBackwardAttr}) {
    scope = scope.WithoutAttr(attr);
  }
  return scope;
}

}  // namespace

// TF1's variable_scope: a name scope for the ops (unique: "vs", then
// "vs_1") and a variable scope for get_variable (always "vs"), nested in
// the parent's variable scope, not its name scope.
VariableScope::VariableScope(const Scope& parent, const std::string& name,
                             VariableScopeOptions options)
    : scope_(parent.NewSubScope(name).WithVariableScope(
          Join(parent.variable_scope_prefix(), name))),
      prefix_(Join(parent.variable_scope_prefix(), name)),
      options_(options) {}

absl::StatusOr<Variable> FindVariable(const Scope& scope,
                                      const std::string& name) {
  const Node* node = scope.graph()->FindNode(name);
  if (node == nullptr ||
      (node->op() != "VarHandleOp" && node->op() != "VariableV2")) {
    return absl::NotFoundError(absl::StrCat("No variable named ", name));
  }
  Operation init;
  if (Node* assign = scope.graph()->FindNode(name + "/Assign")) {
    init = Operation(assign);
  }
  return Variable(Output(const_cast<Node*>(node), 0), init);
}

absl::StatusOr<Variable> VariableScope::get_variable(
    const std::string& name, const TensorShape& shape, DataType dtype,
    Initializer initializer, bool trainable) const {
  RETURN_IF_ERROR(scope_.status());
  const std::string full = Join(prefix_, name);
  if (scope_.graph()->FindNode(full) != nullptr) {
    if (options_.reuse == Reuse::kNone) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Variable ", full,
          " already exists, disallowed. Did you mean to set reuse=True or "
          "reuse=tf.AUTO_REUSE in VarScope? (VariableScopeOptions.reuse)"));
    }
    ASSIGN_OR_RETURN(Variable v, FindVariable(scope_, full));
    if (v.dtype() != dtype || v.shape() != shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Trying to share variable ", full, ", but specified shape ",
          shape.DebugString(), " and dtype ", DataTypeString(dtype),
          " and found shape ", v.shape().DebugString(), " and dtype ",
          DataTypeString(v.dtype())));
    }
    return v;
  }
  if (options_.reuse == Reuse::kReuse) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Variable ", full,
        " does not exist, or was not created with get_variable(). Did you "
        "mean to set reuse=tf.AUTO_REUSE in VarScope?"));
  }
  if (!shape.IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Shape of a new variable (", full, ") must be fully defined, but "
        "instead was ", shape.DebugString()));
  }
  if (initializer == nullptr) initializer = initializers::GlorotUniform();

  const Scope var_scope = OutsideLoops(scope_).WithAbsoluteNameScope(prefix_).WithOpName(name);
  Output handle;
  if (options_.use_resource) {
    handle = ops::VarHandleOp(var_scope, dtype, shape);
  } else {
    handle = ops::Variable(var_scope, shape, dtype);
  }
  Output initial = initializer(InitialValueScope(scope_, full + "/Initializer"),
                               shape, dtype);
  // The initializer runs alone, wherever the variable lives.
  const Scope assign_scope = OutsideLoops(scope_)
                                 .WithAbsoluteNameScope(full)
                                 .WithOpName("Assign")
                                 .WithNoControlDependencies();
  Variable v(handle, Operation());
  Operation init = v.assign(assign_scope, initial);
  RETURN_IF_ERROR(scope_.status());
  scope_.graph()->AddToCollection(kGlobalVariablesCollection, full);
  if (trainable) {
    scope_.graph()->AddToCollection(kTrainableVariablesCollection, full);
  }
  return Variable(handle, init);
}

absl::StatusOr<Variable> get_variable(const Scope& scope,
                                      const std::string& name,
                                      const TensorShape& shape, DataType dtype,
                                      Initializer initializer,
                                      VariableScopeOptions options) {
  return VariableScope(scope, "", options)
      .get_variable(name, shape, dtype, std::move(initializer));
}

absl::StatusOr<std::vector<Variable>> VariablesInCollection(
    const Scope& scope, const std::string& collection) {
  std::vector<Variable> out;
  for (const std::string& name : scope.graph()->GetCollection(collection)) {
    ASSIGN_OR_RETURN(Variable v, FindVariable(scope, name));
    out.push_back(v);
  }
  return out;
}

Operation global_variables_initializer(const Scope& scope) {
  std::vector<Operation> inits;
  absl::StatusOr<std::vector<Variable>> vars =
      VariablesInCollection(scope, kGlobalVariablesCollection);
  if (!vars.ok()) {
    scope.UpdateStatus(vars.status());
    return Operation();
  }
  for (const Variable& v : *vars) {
    if (v.initializer().valid()) inits.push_back(v.initializer());
  }
  // On the host, outside IPU clusters: it only groups the initializers.
  return ops::NoOp(scope.WithDevice("/device:CPU:0")
                       .WithControlDependencies(inits)
                       .WithoutAttrs()
                       .WithOpName("init"));
}

}  // namespace tensorflow_ipu
