// Lowerings of the on-device loop and feed ops (ipu::loops::repeat,
// IPUInfeedQueue, IPUOutfeedQueue). The emitter opens the loop's body at
// its first op and repeats it after its last (emission_state.h); these
// lowerings give the body its carried values and its host streams.
#include "absl/strings/str_cat.h"
#include "poplar_sim/program.h"
#include "tensorflow_ipu/compiler/emission_state.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

namespace program = poplar_sim::program;

absl::Status RequireLoop(const LoweringContext& ctx) {
  if (ctx.cluster().in_loop()) return absl::OkStatus();
  return ctx.Error("is not in a loop body; build it with ipu::loops::repeat");
}

// A pipeline's stages pass values on as outputs; its loop carries none.
absl::Status RequireNoPipeline(const LoweringContext& ctx) {
  if (ctx.cluster().pipeline() == nullptr) return absl::OkStatus();
  return ctx.Error("carries a value across the iterations of a pipeline, which carries "
                   "none; keep state in variables");
}

// The carried value lives in its own tensor, set before the loop.
absl::Status LowerLoopEnter(LoweringContext& ctx) {
  RETURN_IF_ERROR(RequireLoop(ctx));
  RETURN_IF_ERROR(RequireNoPipeline(ctx));
  ASSIGN_OR_RETURN(int64_t index, ctx.GetAttr<int64_t>("index"));
  poplar_sim::Tensor carried = ctx.graph().clone(ctx.input(0), ctx.op().name());
  ctx.cluster().main_program().add(
      program::Copy(ctx.input(0), carried, ctx.op().name()));
  ctx.cluster().SetCarried(index, carried);
  ctx.SetOutput(0, carried);
  return absl::OkStatus();
}

// The next value is copied at the end of the body, after every op read this
// iteration's value (a value that depends on the update of gradient
// accumulation: at the end of the update, so it changes once per update);
// after the loop the carried tensor is the result.
absl::Status LowerLoopExit(LoweringContext& ctx) {
  RETURN_IF_ERROR(RequireLoop(ctx));
  RETURN_IF_ERROR(RequireNoPipeline(ctx));
  ASSIGN_OR_RETURN(int64_t index, ctx.GetAttr<int64_t>("index"));
  const poplar_sim::Tensor* carried = ctx.cluster().FindCarried(index);
  if (carried == nullptr) {
    return ctx.Error(absl::StrCat("has no matching loop entry ", index,
                                  " in its loop; build the loop with "
                                  "ipu::loops::repeat"));
  }
  ctx.cluster().CopyAtIterationEnd(ctx.input(0), *carried);
  ctx.SetOutput(0, *carried);
  return absl::OkStatus();
}

absl::StatusOr<FeedBinding> Feed(const LoweringContext& ctx) {
  FeedBinding b;
  ASSIGN_OR_RETURN(b.feed_name, ctx.GetAttr<std::string>("feed_name"));
  ASSIGN_OR_RETURN(int64_t index, ctx.GetAttr<int64_t>("index"));
  b.index = static_cast<int>(index);
  b.records_per_run = ctx.cluster().phase_iterations();
  return b;
}

// One record per iteration, streamed from the host into its own tensor.
absl::Status LowerInfeedDequeue(LoweringContext& ctx) {
  RETURN_IF_ERROR(RequireLoop(ctx));
  ASSIGN_OR_RETURN(FeedBinding b, Feed(ctx));
  b.dtype = ctx.output_type(0);
  b.shape = ctx.output_shape(0);
  auto type = ToPoplarType(b.dtype);
  if (!type.ok()) return ctx.Error(type.status().message());
  poplar_sim::Tensor t = ctx.AddMappedVariable(*type, ctx.OutputDims(0),
                                               ctx.op().name());
  poplar_sim::DataStream s =
      ctx.cluster().AddInfeed(std::move(b), *type, t.numElements());
  ctx.prog().add(program::Copy(s, t, ctx.op().name()));
  ctx.SetOutput(0, t);
  return absl::OkStatus();
}

// Its input, streamed to the host once per iteration.
absl::Status LowerOutfeedEnqueue(LoweringContext& ctx) {
  RETURN_IF_ERROR(RequireLoop(ctx));
  ASSIGN_OR_RETURN(FeedBinding b, Feed(ctx));
  b.dtype = ctx.input_type(0);
  b.shape = ctx.input_shape(0);
  const poplar_sim::Tensor& value = ctx.input(0);
  poplar_sim::DataStream s = ctx.cluster().AddOutfeed(
      std::move(b), value.elementType(), value.numElements());
  ctx.prog().add(program::Copy(value, s, ctx.op().name()));
  return absl::OkStatus();
}

REGISTER_IPU_LOWERING("IpuLoopEnter", LowerLoopEnter);
REGISTER_IPU_LOWERING("IpuLoopExit", LowerLoopExit);
REGISTER_IPU_LOWERING("IpuInfeedDequeue", LowerInfeedDequeue);
REGISTER_IPU_LOWERING("IpuOutfeedEnqueue", LowerOutfeedEnqueue);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
