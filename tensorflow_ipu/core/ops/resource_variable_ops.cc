// Resource variables, as TensorFlow's resource_variable_ops: a handle op
// names a variable in the session's ResourceManager; read and assign ops take
// the handle. Ops that take a handle are placed with the op that made it.
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

absl::Status ScalarShape(InferenceContext* c) {
  c->set_output(0, TensorShape());
  return absl::OkStatus();
}

absl::Status ReadShape(InferenceContext* c) {
  c->set_output(0, c->input_handle_shape(0));
  return absl::OkStatus();
}

// The value assigned must fit the variable's shape, when both are known.
absl::Status AssignShape(InferenceContext* c) {
  const TensorShape var = c->input_handle_shape(0);
  if (!var.IsCompatibleWith(c->input_shape(1))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot assign a value of shape ", c->input_shape(1).DebugString(),
        " to a variable of shape ", var.DebugString()));
  }
  return absl::OkStatus();
}

// VarHandleOp(): resource. `shared_name` names the variable (the node's own
// name when empty); `dtype` and `shape` are the variable's.
REGISTER_OP(OpDefBuilder("VarHandleOp")
                .Output("resource", DT_RESOURCE)
                .Attr("container", "string", MakeAttrValue(std::string()))
                .Attr("shared_name", "string", MakeAttrValue(std::string()))
                .TypeAttr("dtype", {})
                .Attr("shape", "shape")
                .SetIsStateful()
                .SetIsResourceHandle()
                .SetShapeFn(ScalarShape));

REGISTER_OP(OpDefBuilder("ReadVariableOp")
                .Input("resource", DT_RESOURCE)
                .Output("value", "dtype")
                .TypeAttr("dtype", {})
                .SetIsStateful()
                .SetPassesThrough()
                .SetShapeFn(ReadShape));

REGISTER_OP(OpDefBuilder("AssignVariableOp")
                .Input("resource", DT_RESOURCE)
                .Input("value", "dtype")
                .TypeAttr("dtype", {})
                .SetIsStateful()
                .SetWritesVariable(0, VariableWrite::kOverwrite)
                .SetShapeFn(AssignShape));

REGISTER_OP(OpDefBuilder("AssignAddVariableOp")
                .Input("resource", DT_RESOURCE)
                .Input("value", "dtype")
                .TypeAttr("dtype", {DT_FLOAT, DT_HALF, DT_DOUBLE, DT_INT32,
                                    DT_INT64})
                .SetIsStateful()
                .SetWritesVariable(0, VariableWrite::kReadModifyWrite)
                .SetShapeFn(AssignShape));

REGISTER_OP(OpDefBuilder("AssignSubVariableOp")
                .Input("resource", DT_RESOURCE)
                .Input("value", "dtype")
                .TypeAttr("dtype", {DT_FLOAT, DT_HALF, DT_DOUBLE, DT_INT32,
                                    DT_INT64})
                .SetIsStateful()
                .SetWritesVariable(0, VariableWrite::kReadModifyWrite)
                .SetShapeFn(AssignShape));

// var -= alpha * delta in one step, as TensorFlow's training op of the
// same name: what GradientDescentOptimizer applies to a resource variable.
// One op instead of Mul + AssignSubVariableOp, so that the update is one
// pass over the variable on the CPU and one scaled add on the IPU.
absl::Status ApplyGradientDescentShape(InferenceContext* c) {
  if (!c->input_shape(1).IsCompatibleWith(TensorShape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "alpha must be a scalar, not of shape ", c->input_shape(1).DebugString()));
  }
  const TensorShape var = c->input_handle_shape(0);
  if (!var.IsCompatibleWith(c->input_shape(2))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot apply a delta of shape ", c->input_shape(2).DebugString(),
        " to a variable of shape ", var.DebugString()));
  }
  return absl::OkStatus();
}

REGISTER_OP(OpDefBuilder("ResourceApplyGradientDescent")
                .Input("var", DT_RESOURCE)
                .Input("alpha", "T")
                .Input("delta", "T")
                .TypeAttr("T", {DT_FLOAT, DT_HALF, DT_DOUBLE})
                .Attr("use_locking", "bool", MakeAttrValue(false))
                .SetIsStateful()
                .SetWritesVariable(0, VariableWrite::kReadModifyWrite)
                .SetShapeFn(ApplyGradientDescentShape));

// True once the variable has a value.
REGISTER_OP(OpDefBuilder("VarIsInitializedOp")
                .Input("resource", DT_RESOURCE)
                .Output("is_initialized", DT_BOOL)
                .SetIsStateful()
                .SetShapeFn(ScalarShape));

}  // namespace
}  // namespace tensorflow_ipu
