#include "tensorflow_ipu/cc/variables/variable.h"

#include "tensorflow_ipu/cc/ops/resource_variable_ops.h"
#include "tensorflow_ipu/cc/ops/state_ops.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {

Variable::Variable(Output handle, Operation initializer)
    : handle_(handle), initializer_(initializer) {
  if (!handle_.valid()) return;
  const NodeDef& def = handle_.node()->def();
  dtype_ = GetNodeAttr<DataType>(def, "dtype").value_or(DT_INVALID);
  shape_ = GetNodeAttr<TensorShape>(def, "shape").value_or(TensorShape::Unknown());
}

Output Variable::value(const Scope& scope) const {
  if (!is_resource()) return handle_;
  return ops::ReadVariableOp(scope, handle_, dtype_);
}

Operation Variable::assign(const Scope& scope, Input value) const {
  if (!is_resource()) return ops::Assign(scope, handle_, value).operation;
  return ops::AssignVariableOp(scope, handle_, value);
}

Operation Variable::assign_add(const Scope& scope, Input delta) const {
  if (!is_resource()) return ops::AssignAdd(scope, handle_, delta).operation;
  return ops::AssignAddVariableOp(scope, handle_, delta);
}

Operation Variable::assign_sub(const Scope& scope, Input delta) const {
  if (!is_resource()) return ops::AssignSub(scope, handle_, delta).operation;
  return ops::AssignSubVariableOp(scope, handle_, delta);
}

}  // namespace tensorflow_ipu
