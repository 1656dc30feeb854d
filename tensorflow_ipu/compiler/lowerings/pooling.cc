// Lowerings of MaxPool and MaxPoolGrad over the strided views of each tap
// of the window (window_views.h), one element-wise compute set per tap:
//   MaxPool:     the maximum of the taps' views of the input padded with
//                -inf (padding never wins);
//   MaxPoolGrad: tap by tap in row-major order, a tap takes the gradient
//                where it equals the pooled maximum and no earlier tap
//                took it (the first maximum, as the CPU kernel), and adds
//                it into its view of a zeroed, padded input gradient. The
//                input is padded with NaN there, which equals nothing.
// NHWC only (Unimplemented otherwise), as on the CPU.
#include <limits>
#include <string>

#include "poplar_sim/popops/cast_fill.h"
#include "poplar_sim/popops/elementwise.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/compiler/lowerings/window_views.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

using poplar_sim::popops::BinaryOpType;
using poplar_sim::popops::UnaryOpType;
using window::Window2DDims;

absl::Status LowerMaxPool(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(Window2DDims d, LoweredPoolDims(ctx, ctx.input_shape(0)));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  ASSIGN_OR_RETURN(poplar_sim::Tensor padded,
                   PadSpatial(ctx, ctx.input(0), d, ctx.input_type(0),
                              -std::numeric_limits<float>::infinity()));
  const std::string name = ctx.op().name();
  // The first tap's view, then a new tensor that later taps update.
  poplar_sim::Tensor out;
  bool owned = false;
  for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
    for (int64_t kx = 0; kx < d.filter_cols; ++kx) {
      poplar_sim::Tensor tap = TapView(padded, d, ky, kx);
      if (!out.valid()) {
        out = tap;
      } else if (!owned) {
        out = poplar_sim::popops::map(ctx.graph(), BinaryOpType::MAXIMUM, out, tap, ctx.prog(),
                                      name);
        owned = true;
      } else {
        poplar_sim::popops::mapInPlace(ctx.graph(), BinaryOpType::MAXIMUM, out, tap,
                                       ctx.prog(), name);
      }
    }
  }
  ctx.SetOutput(0, out);
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("MaxPool", LowerMaxPool);

absl::Status LowerMaxPoolGrad(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(Window2DDims d, LoweredPoolDims(ctx, ctx.input_shape(0)));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  const DataType dtype = ctx.input_type(0);
  const std::string name = ctx.op().name();
  auto& g = ctx.graph();
  auto& prog = ctx.prog();
  ASSIGN_OR_RETURN(poplar_sim::Tensor x,
                   PadSpatial(ctx, ctx.input(0), d, dtype,
                              std::numeric_limits<float>::quiet_NaN()));
  const poplar_sim::Tensor& y = ctx.input(1);
  const poplar_sim::Tensor& grad = ctx.input(2);
  ASSIGN_OR_RETURN(poplar_sim::Type type, ToPoplarType(dtype));
  const size_t n = d.batch, c = d.in_depth;
  const size_t h = d.in_rows + d.rows.pad_before + d.rows.pad_after;
  const size_t w = d.in_cols + d.cols.pad_before + d.cols.pad_after;
  poplar_sim::Tensor dx = ctx.AddMappedVariable(type, {n, h, w, c}, name + "/padded");
  poplar_sim::popops::zero(g, dx, prog, name + "/zero");
  const Tensor zero_value =
      dtype == DT_HALF ? Tensor::Scalar<half>(half(0.f)) : Tensor::Scalar<float>(0.f);
  ASSIGN_OR_RETURN(poplar_sim::Tensor zero, ctx.AddConstant(zero_value, name + "/zero_value"));
  poplar_sim::Tensor taken;  // where an earlier tap was the maximum
  for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
    for (int64_t kx = 0; kx < d.filter_cols; ++kx) {
      poplar_sim::Tensor is_max =
          poplar_sim::popops::map(g, BinaryOpType::EQUAL, TapView(x, d, ky, kx), y, prog,
                                  name + "/is_max");
      poplar_sim::Tensor takes = is_max;
      if (taken.valid()) {
        takes = poplar_sim::popops::map(
            g, BinaryOpType::LOGICAL_AND, is_max,
            poplar_sim::popops::map(g, UnaryOpType::LOGICAL_NOT, taken, prog, name + "/free"),
            prog, name + "/takes");
        poplar_sim::popops::mapInPlace(g, BinaryOpType::LOGICAL_OR, taken, is_max, prog,
                                       name + "/taken");
      } else {
        taken = is_max;
      }
      poplar_sim::Tensor share =
          poplar_sim::popops::select(g, grad, zero, takes, prog, name + "/share");
      poplar_sim::popops::addInPlace(g, TapView(dx, d, ky, kx), share, prog,
                                     name + "/scatter");
    }
  }
  const size_t top = d.rows.pad_before, left = d.cols.pad_before;
  ctx.SetOutput(0, dx.slice({0, top, left, 0}, {n, top + d.in_rows, left + d.in_cols, c}));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("MaxPoolGrad", LowerMaxPoolGrad);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
