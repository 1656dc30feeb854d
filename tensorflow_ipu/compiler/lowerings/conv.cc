// Lowerings of Conv2D and its gradients as im2col views (window_views.h)
// and poplin::matMul, so that the planner splits a convolution over tiles
// as it splits any matrix product. With col [rows, patch] the input's
// patches and F the filter as [patch, out_depth]:
//   Conv2D:               col * F
//   Conv2DBackpropFilter: col^T * out_backprop
//   Conv2DBackpropInput:  out_backprop * F^T, whose columns (one per tap)
//                         poplin::col2im adds into the input positions
//                         each tap read, in one compute set.
// NHWC and dilations of 1 only (Unimplemented otherwise), as on the CPU.
#include <vector>

#include "poplar_sim/poplin/col2im.h"
#include "poplar_sim/poplin/matmul.h"
#include "tensorflow_ipu/compiler/emission_state.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/compiler/lowerings/window_views.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

using window::Window2DDims;

size_t Patch(const Window2DDims& d) {
  return static_cast<size_t>(d.filter_rows * d.filter_cols * d.in_depth);
}
size_t Rows(const Window2DDims& d) {
  return static_cast<size_t>(d.batch * d.rows.output * d.cols.output);
}

poplar_sim::Tensor MatMul(LoweringContext& ctx, const poplar_sim::Tensor& a,
                          const poplar_sim::Tensor& b) {
  // IPUConfig.convolutions' options, as the vendor's convolutions take them.
  return poplar_sim::poplin::matMul(ctx.graph(), a, b, ctx.prog(), ctx.op().name(),
                                    ctx.cluster().convolution_options());
}

absl::Status LowerConv2D(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(Window2DDims d,
                   LoweredConvDims(ctx, ctx.input_shape(0), ctx.input_shape(1)));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  ASSIGN_OR_RETURN(poplar_sim::Tensor col,
                   Im2ColView(ctx, ctx.input(0), d, ctx.input_type(0)));
  poplar_sim::Tensor f = ctx.input(1).reshape({Patch(d), static_cast<size_t>(d.out_depth)});
  ctx.SetOutput(0, MatMul(ctx, col, f).reshape(ctx.OutputDims(0)));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Conv2D", LowerConv2D);

absl::Status LowerConv2DBackpropFilter(LoweringContext& ctx) {
  const TensorShape& filter = ctx.output_shape(0);
  ASSIGN_OR_RETURN(Window2DDims d, LoweredConvDims(ctx, ctx.input_shape(0), filter));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  ASSIGN_OR_RETURN(poplar_sim::Tensor col,
                   Im2ColView(ctx, ctx.input(0), d, ctx.input_type(0)));
  poplar_sim::Tensor dy = ctx.input(2).reshape({Rows(d), static_cast<size_t>(d.out_depth)});
  ctx.SetOutput(0, MatMul(ctx, col.transpose(), dy).reshape(ctx.OutputDims(0)));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Conv2DBackpropFilter", LowerConv2DBackpropFilter);

absl::Status LowerConv2DBackpropInput(LoweringContext& ctx) {
  const TensorShape& input = ctx.output_shape(0);
  ASSIGN_OR_RETURN(Window2DDims d, LoweredConvDims(ctx, input, ctx.input_shape(1)));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  poplar_sim::Tensor f = ctx.input(1).reshape({Patch(d), static_cast<size_t>(d.out_depth)});
  poplar_sim::Tensor dy = ctx.input(2).reshape({Rows(d), static_cast<size_t>(d.out_depth)});
  poplar_sim::Tensor dcol = MatMul(ctx, dy, f.transpose());
  if (d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 && d.stride_cols == 1) {
    ctx.SetOutput(0, dcol.reshape(ctx.OutputDims(0)));
    return absl::OkStatus();
  }
  ctx.SetOutput(0, poplar_sim::poplin::col2im(ctx.graph(), dcol, SimWindow(d), ctx.prog(),
                                              ctx.op().name() + "/col2im"));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Conv2DBackpropInput", LowerConv2DBackpropInput);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
