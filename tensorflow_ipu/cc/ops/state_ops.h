// Client wrappers of the reference variables (TensorFlow's tf.Variable of
// graph mode): they run on the CPU; on an IPU they are refused with
// TensorFlow's placement error. Prefer resource variables (get_variable).
//
//   auto v = ops::Variable(cpu.WithOpName("v"), TensorShape({2}), DT_FLOAT);
//   auto init = ops::Assign(cpu, v, {1.f, 2.f});
//   auto inc = ops::AssignAdd(cpu, v, {1.f, 1.f});
#ifndef TENSORFLOW_IPU_CC_OPS_STATE_OPS_H_
#define TENSORFLOW_IPU_CC_OPS_STATE_OPS_H_

#include "tensorflow_ipu/cc/ops/op_builder.h"

namespace tensorflow_ipu {
namespace ops {

// A VariableV2 node.
class Variable : public SingleOutputOp {
 public:
  Variable(const Scope& scope, const TensorShape& shape, DataType dtype);
};

class Assign : public SingleOutputOp {
 public:
  Assign(const Scope& scope, Input ref, Input value);
};

class AssignAdd : public SingleOutputOp {
 public:
  AssignAdd(const Scope& scope, Input ref, Input value);
};

class AssignSub : public SingleOutputOp {
 public:
  AssignSub(const Scope& scope, Input ref, Input value);
};

}  // namespace ops
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CC_OPS_STATE_OPS_H_
