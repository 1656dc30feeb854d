// FloatNodeDef: the NodeDef of a float op for the compiler's tests, which
// build cluster IRs by hand.
//
//   const int y = ir.AddOp(FloatNodeDef("y", "Neg"), {{x, 0}}, {DT_FLOAT}, {shape});
#ifndef TENSORFLOW_IPU_COMPILER_FLOAT_NODE_DEF_H_
#define TENSORFLOW_IPU_COMPILER_FLOAT_NODE_DEF_H_

#include <string>

#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace compiler {

// `op` named `name`, with its "T" attribute float.
inline NodeDef FloatNodeDef(const std::string& name, const std::string& op) {
  NodeDef d;
  d.set_name(name);
  d.set_op(op);
  (*d.mutable_attr())["T"] = MakeAttrValue(DT_FLOAT);
  return d;
}

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_FLOAT_NODE_DEF_H_
