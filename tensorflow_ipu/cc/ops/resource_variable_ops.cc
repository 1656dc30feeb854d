#include "tensorflow_ipu/cc/ops/resource_variable_ops.h"

#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace ops {

VarHandleOp::VarHandleOp(const Scope& scope, DataType dtype,
                         const TensorShape& shape,
                         const std::string& shared_name)
    : SingleOutputOp(BuildOp(scope, "VarHandleOp", {},
                             {{"dtype", MakeAttrValue(dtype)},
                              {"shape", MakeAttrValue(shape)},
                              {"shared_name", MakeAttrValue(shared_name)}})) {}

ReadVariableOp::ReadVariableOp(const Scope& scope, Input resource,
                               DataType dtype)
    : SingleOutputOp(BuildOp(scope, "ReadVariableOp", {resource},
                             {{"dtype", MakeAttrValue(dtype)}})) {}

VarIsInitializedOp::VarIsInitializedOp(const Scope& scope, Input resource)
    : SingleOutputOp(BuildOp(scope, "VarIsInitializedOp", {resource})) {}

AssignVariableOp::AssignVariableOp(const Scope& scope, Input resource,
                                   Input value)
    : operation(BuildOp(scope, "AssignVariableOp", {resource, value})) {}

AssignAddVariableOp::AssignAddVariableOp(const Scope& scope, Input resource,
                                         Input value)
    : operation(BuildOp(scope, "AssignAddVariableOp", {resource, value})) {}

AssignSubVariableOp::AssignSubVariableOp(const Scope& scope, Input resource,
                                         Input value)
    : operation(BuildOp(scope, "AssignSubVariableOp", {resource, value})) {}

ResourceApplyGradientDescent::ResourceApplyGradientDescent(const Scope& scope,
                                                           Input var, Input alpha,
                                                           Input delta)
    : operation(BuildOp(scope, "ResourceApplyGradientDescent", {var, alpha, delta})) {}

}  // namespace ops
}  // namespace tensorflow_ipu
