#include "tensorflow_ipu/compiler/lowerings/window_views.h"

#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/popops/cast_fill.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

using window::Window2DDims;

// The im2col view is built tap by tap (a view per tap); beyond this many
// taps that is no longer a sensible program.
constexpr int64_t kMaxTaps = 4096;

absl::StatusOr<Window2DDims> Supported(const LoweringContext& ctx,
                                       const window::WindowAttrs& attrs,
                                       absl::StatusOr<Window2DDims> d) {
  if (!attrs.nhwc()) {
    return ctx.Unimplemented(
        absl::StrCat("data_format \"", attrs.data_format, "\" on the IPU; use NHWC"));
  }
  if (attrs.dilation_rows != 1 || attrs.dilation_cols != 1) {
    return ctx.Unimplemented("dilations other than 1 on the IPU");
  }
  if (!d.ok()) return ctx.Error(d.status().message());
  if (d->filter_rows > kMaxTaps || d->filter_cols > kMaxTaps ||
      d->filter_rows * d->filter_cols > kMaxTaps) {
    return ctx.Unimplemented(absl::StrCat(
        "a window of ", d->filter_rows, "x", d->filter_cols, " taps on the IPU (at most ",
        kMaxTaps, " taps are lowered)"));
  }
  if (d->in_depth != d->filter_depth) {
    return ctx.Unimplemented(absl::StrCat("grouped convolutions on the IPU: input depth ",
                                          d->in_depth, ", filter input depth ",
                                          d->filter_depth));
  }
  return d;
}

// A view of one constant element repeated to `dims`.
poplar_sim::Tensor Repeat(const poplar_sim::Tensor& one, const std::vector<size_t>& dims) {
  poplar_sim::Tensor t = one.reshape(std::vector<size_t>(dims.size(), 1));
  for (unsigned i = 0; i < dims.size(); ++i) t = t.broadcast(dims[i], i);
  return t;
}

// `x` with `before` and `after` elements of `one` added along `dim`.
poplar_sim::Tensor PadDim(const poplar_sim::Tensor& x, const poplar_sim::Tensor& one,
                          unsigned dim, size_t before, size_t after) {
  std::vector<poplar_sim::Tensor> parts;
  std::vector<size_t> dims = x.shape();
  if (before > 0) {
    dims[dim] = before;
    parts.push_back(Repeat(one, dims));
  }
  parts.push_back(x);
  if (after > 0) {
    dims[dim] = after;
    parts.push_back(Repeat(one, dims));
  }
  return parts.size() == 1 ? x : poplar_sim::concat(parts, dim);
}

}  // namespace

absl::StatusOr<Window2DDims> LoweredConvDims(const LoweringContext& ctx,
                                             const TensorShape& input,
                                             const TensorShape& filter) {
  absl::StatusOr<window::WindowAttrs> attrs = window::ReadConvAttrs(ctx.def());
  if (!attrs.ok()) return ctx.Error(attrs.status().message());
  return Supported(ctx, *attrs, window::ComputeConv2DDims(input, filter, *attrs));
}

absl::StatusOr<Window2DDims> LoweredPoolDims(const LoweringContext& ctx,
                                             const TensorShape& input) {
  absl::StatusOr<window::WindowAttrs> attrs = window::ReadPoolAttrs(ctx.def());
  if (!attrs.ok()) return ctx.Error(attrs.status().message());
  return Supported(ctx, *attrs, window::ComputePool2DDims(input, *attrs));
}

poplar_sim::poputil::Window2D SimWindow(const Window2DDims& d) {
  poplar_sim::poputil::Window2D w;
  w.batch = d.batch;
  w.inRows = d.in_rows;
  w.inCols = d.in_cols;
  w.channels = d.in_depth;
  w.windowRows = d.filter_rows;
  w.windowCols = d.filter_cols;
  w.strideRows = d.stride_rows;
  w.strideCols = d.stride_cols;
  w.padTop = d.rows.pad_before;
  w.padLeft = d.cols.pad_before;
  w.outRows = d.rows.output;
  w.outCols = d.cols.output;
  return w;
}

absl::StatusOr<bool> LowerEmptyWindows(LoweringContext& ctx, const Window2DDims& d) {
  if (d.batch > 0 && d.rows.output > 0 && d.cols.output > 0) return false;
  ASSIGN_OR_RETURN(poplar_sim::Type type, ToPoplarType(ctx.output_type(0)));
  poplar_sim::Tensor out =
      ctx.AddMappedVariable(type, ctx.OutputDims(0), ctx.op().name() + "/zeros");
  if (out.numElements() > 0) {
    poplar_sim::popops::zero(ctx.graph(), out, ctx.prog(), ctx.op().name() + "/zeros");
  }
  ctx.SetOutput(0, out);
  return true;
}

namespace {

// `x` [N, H, W, C] with d's padding on each side, the padding a constant
// `value` of `dtype` (one element, broadcast).
absl::StatusOr<poplar_sim::Tensor> PadSpatial(const LoweringContext& ctx,
                                              const poplar_sim::Tensor& x,
                                              const Window2DDims& d, DataType dtype,
                                              float value) {
  if (d.rows.pad_before + d.rows.pad_after + d.cols.pad_before + d.cols.pad_after == 0) {
    return x;
  }
  const Tensor scalar =
      dtype == DT_HALF ? Tensor::Scalar<half>(half(value)) : Tensor::Scalar<float>(value);
  ASSIGN_OR_RETURN(poplar_sim::Tensor one,
                   ctx.AddConstant(scalar, absl::StrCat(ctx.op().name(), "/padding")));
  poplar_sim::Tensor rows = PadDim(x, one, 1, d.rows.pad_before, d.rows.pad_after);
  return PadDim(rows, one, 2, d.cols.pad_before, d.cols.pad_after);
}

// The [N, out_rows, out_cols, C] view of a padded input that tap (ky, kx)
// of every window reads.
poplar_sim::Tensor TapView(const poplar_sim::Tensor& padded, const Window2DDims& d,
                           int64_t ky, int64_t kx) {
  const size_t n = padded.dim(0), c = padded.dim(3);
  const size_t row_end = ky + (d.rows.output - 1) * d.stride_rows + 1;
  const size_t col_end = kx + (d.cols.output - 1) * d.stride_cols + 1;
  return padded.slice({0, static_cast<size_t>(ky), static_cast<size_t>(kx), 0},
                      {n, row_end, col_end, c})
      .subSample(d.stride_rows, 1)
      .subSample(d.stride_cols, 2);
}

}  // namespace

absl::StatusOr<poplar_sim::Tensor> Im2ColView(const LoweringContext& ctx,
                                              const poplar_sim::Tensor& x,
                                              const Window2DDims& d, DataType dtype) {
  const size_t rows = d.batch * d.rows.output * d.cols.output;
  if (d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 && d.stride_cols == 1) {
    return x.reshape({rows, static_cast<size_t>(d.in_depth)});
  }
  ASSIGN_OR_RETURN(poplar_sim::Tensor padded, PadSpatial(ctx, x, d, dtype, 0.0f));
  std::vector<poplar_sim::Tensor> taps;
  for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
    for (int64_t kx = 0; kx < d.filter_cols; ++kx) taps.push_back(TapView(padded, d, ky, kx));
  }
  // [N, OH, OW, taps * C]: each row of col is one window, tap by tap.
  return poplar_sim::concat(taps, 3).reshape(
      {rows, static_cast<size_t>(d.filter_rows * d.filter_cols * d.in_depth)});
}

}  // namespace compiler
}  // namespace tensorflow_ipu
