// Variable: a graph variable as the client API sees it, resource or
// reference, with the ops to read and change it.
//
//   VariableScope vs(root, "vs");
//   ASSIGN_OR_RETURN(Variable w, vs.get_variable("w", {2}, DT_FLOAT,
//                                                initializers::Constant(0.5f)));
//   Output value = w.value(scope);          // ReadVariableOp (or the ref)
//   Operation inc = w.assign_add(scope, {1.f, 1.f});
//   session.Run({}, {}, {w.initializer()}, nullptr);
//
// Ops that read or change a resource variable run where the variable lives
// (with its VarHandleOp), whatever the scope's device.
#ifndef TENSORFLOW_IPU_CC_VARIABLES_VARIABLE_H_
#define TENSORFLOW_IPU_CC_VARIABLES_VARIABLE_H_

#include <string>

#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/core/types.h"

namespace tensorflow_ipu {

class Variable {
 public:
  Variable() = default;
  // `handle` is a VarHandleOp output (resource variable) or a VariableV2
  // output (reference variable); `initializer` the op that sets the initial
  // value (invalid if none).
  Variable(Output handle, Operation initializer);

  bool valid() const { return handle_.valid(); }
  bool is_resource() const { return handle_.type() == DT_RESOURCE; }
  // The variable's node name, "vs/w".
  const std::string& name() const { return handle_.node()->name(); }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  Output handle() const { return handle_; }
  Operation initializer() const { return initializer_; }

  // The current value (a new ReadVariableOp each call; the reference itself
  // for a reference variable).
  Output value(const Scope& scope) const;
  Operation assign(const Scope& scope, Input value) const;
  Operation assign_add(const Scope& scope, Input delta) const;
  Operation assign_sub(const Scope& scope, Input delta) const;

 private:
  Output handle_;
  Operation initializer_;
  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CC_VARIABLES_VARIABLE_H_
