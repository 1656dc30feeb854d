// Lowerings of MaxPool and MaxPoolGrad to popnn's pooling (one compute set
// each, as Poplar lowers them), with the CPU kernels' semantics: padding is
// outside every window, the first maximum of a window in row-major order
// wins, and MaxPoolGrad recomputes it from orig_input (orig_output is only
// checked for its shape, as on the CPU). NHWC only (Unimplemented
// otherwise), as on the CPU.
#include "poplar_sim/popnn/pooling.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/compiler/lowerings/window_views.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

using window::Window2DDims;

absl::Status LowerMaxPool(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(Window2DDims d, LoweredPoolDims(ctx, ctx.input_shape(0)));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  ctx.SetOutput(0, poplar_sim::popnn::maxPool(ctx.graph(), ctx.input(0), SimWindow(d),
                                              ctx.prog(), ctx.op().name()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("MaxPool", LowerMaxPool);

absl::Status LowerMaxPoolGrad(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(Window2DDims d, LoweredPoolDims(ctx, ctx.input_shape(0)));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  ctx.SetOutput(0, poplar_sim::popnn::maxPoolInputGradient(ctx.graph(), ctx.input(0),
                                                           ctx.input(2), SimWindow(d),
                                                           ctx.prog(), ctx.op().name()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("MaxPoolGrad", LowerMaxPoolGrad);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
