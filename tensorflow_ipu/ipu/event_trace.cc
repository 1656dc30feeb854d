#include "tensorflow_ipu/ipu/event_trace.h"

#include "tensorflow_ipu/cc/ops/op_builder.h"

namespace tensorflow_ipu {
namespace ipu {
namespace ops {

Output ipu_event_trace(const Scope& scope) {
  Operation op = tensorflow_ipu::ops::BuildOp(scope, "IpuEventTrace", {});
  return op.valid() ? Output(op, 0) : Output();
}

}  // namespace ops
}  // namespace ipu
}  // namespace tensorflow_ipu
