// The loop and feed ops (ipu::loops::repeat, IPUInfeedQueue,
// IPUOutfeedQueue) are lowered by the emitter, which owns the loop's
// program and the feeds' streams (cluster_compiler.cc). Registering them
// tells the placer they can run on the IPU.
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

absl::Status LoweredByEmitter(LoweringContext& ctx) {
  return absl::InternalError(absl::StrCat(
      "Op '", ctx.op().name(), "' (", ctx.op().op(),
      ") must be lowered by the emitter"));
}

REGISTER_IPU_LOWERING("IpuLoopEnter", LoweredByEmitter);
REGISTER_IPU_LOWERING("IpuLoopExit", LoweredByEmitter);
REGISTER_IPU_LOWERING("IpuInfeedDequeue", LoweredByEmitter);
REGISTER_IPU_LOWERING("IpuOutfeedEnqueue", LoweredByEmitter);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
