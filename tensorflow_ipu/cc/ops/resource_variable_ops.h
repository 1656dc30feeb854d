// Client wrappers of the resource variable ops. Most programs use
// get_variable (cc/framework/variable_scope.h), which builds these.
//
//   auto v = ops::VarHandleOp(scope.WithOpName("w"), DT_FLOAT, TensorShape({2}));
//   auto init = ops::AssignVariableOp(scope, v, {1.f, 2.f});
//   auto read = ops::ReadVariableOp(scope, v, DT_FLOAT);
#ifndef TENSORFLOW_IPU_CC_OPS_RESOURCE_VARIABLE_OPS_H_
#define TENSORFLOW_IPU_CC_OPS_RESOURCE_VARIABLE_OPS_H_

#include <string>

#include "tensorflow_ipu/cc/ops/op_builder.h"

namespace tensorflow_ipu {
namespace ops {

// The variable's shared name is the node's name unless `shared_name` is set.
class VarHandleOp : public SingleOutputOp {
 public:
  VarHandleOp(const Scope& scope, DataType dtype, const TensorShape& shape,
              const std::string& shared_name = "");
};

class ReadVariableOp : public SingleOutputOp {
 public:
  ReadVariableOp(const Scope& scope, Input resource, DataType dtype);
};

class VarIsInitializedOp : public SingleOutputOp {
 public:
  VarIsInitializedOp(const Scope& scope, Input resource);
};

// The assign ops have no outputs; they convert to Operation for targets and
// control dependencies.
class AssignVariableOp {
 public:
  AssignVariableOp(const Scope& scope, Input resource, Input value);
  operator Operation() const { return operation; }  // NOLINT
  Operation operation;
};

class AssignAddVariableOp {
 public:
  AssignAddVariableOp(const Scope& scope, Input resource, Input value);
  operator Operation() const { return operation; }  // NOLINT
  Operation operation;
};

class AssignSubVariableOp {
 public:
  AssignSubVariableOp(const Scope& scope, Input resource, Input value);
  operator Operation() const { return operation; }  // NOLINT
  Operation operation;
};

// var -= alpha * delta (TensorFlow's training op of the same name).
class ResourceApplyGradientDescent {
 public:
  ResourceApplyGradientDescent(const Scope& scope, Input var, Input alpha,
                               Input delta);
  operator Operation() const { return operation; }  // NOLINT
  Operation operation;
};

}  // namespace ops
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CC_OPS_RESOURCE_VARIABLE_OPS_H_
