// The IpuEventTrace op and its CPU kernel, as the vendor's ipu_event_trace:
//   IpuEventTrace() -> events: uint8[?]
// returns the IPU trace events recorded in this process since the last run
// of any IpuEventTrace op (ipu_event_trace.h), serialized as an
// IpuTraceEvents message; ParseTraceEvents reads it back. The op runs on the
// host only (it has no IPU lowering: placing it under ipu_scope is the
// placer's "no IPU lowering" error). Stateful: two runs return different
// values, so it must never be folded or merged.
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu_event_trace.h"

namespace tensorflow_ipu {
namespace {

REGISTER_OP(OpDefBuilder("IpuEventTrace")
                .Output("events", DT_UINT8)
                .SetIsStateful()
                .SetShapeFn([](InferenceContext* c) {
                  c->set_output(0, TensorShape({TensorShape::kUnknownDim}));
                  return absl::OkStatus();
                }));

class IpuEventTraceKernel : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(Tensor events,
                     SerializeTraceEvents(IpuEventTrace::Global().TakeEvents()));
    ctx->set_output(0, std::move(events));
    return absl::OkStatus();
  }
};
REGISTER_KERNEL("IpuEventTrace", kDeviceTypeCpu, IpuEventTraceKernel);

}  // namespace
}  // namespace tensorflow_ipu
