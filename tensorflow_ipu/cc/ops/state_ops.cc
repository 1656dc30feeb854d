#include "tensorflow_ipu/cc/ops/state_ops.h"

#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace ops {

Variable::Variable(const Scope& scope, const TensorShape& shape, DataType dtype)
    : SingleOutputOp(BuildOp(scope, "VariableV2", {},
                             {{"shape", MakeAttrValue(shape)},
                              {"dtype", MakeAttrValue(dtype)}})) {}

Assign::Assign(const Scope& scope, Input ref, Input value)
    : SingleOutputOp(BuildOp(scope, "Assign", {ref, value})) {}

AssignAdd::AssignAdd(const Scope& scope, Input ref, Input value)
    : SingleOutputOp(BuildOp(scope, "AssignAdd", {ref, value})) {}

AssignSub::AssignSub(const Scope& scope, Input ref, Input value)
    : SingleOutputOp(BuildOp(scope, "AssignSub", {ref, value})) {}

}  // namespace ops
}  // namespace tensorflow_ipu
