#include "tensorflow_ipu/core/kernels/window_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace window {
namespace {

constexpr int64_t kUnknown = TensorShape::kUnknownDim;
// Windows spanning more inputs than this are refused: no value can be that
// long (TensorShape::kMaxElements is 2^38), and it keeps the arithmetic
// below far from overflow whatever the attrs hold.
constexpr __int128 kMaxSpan = __int128{1} << 40;

std::string List(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// Positions of N, H, W, C in a 4-D shape of `format`.
struct Layout {
  int n, h, w, c;
};
Layout LayoutOf(const WindowAttrs& a) {
  return a.nhwc() ? Layout{0, 1, 2, 3} : Layout{0, 2, 3, 1};
}

// A string attr that must be one of `allowed`, in TensorFlow's wording.
absl::StatusOr<std::string> ReadChoice(const NodeDef& node, absl::string_view attr,
                                       const std::vector<std::string>& allowed) {
  ASSIGN_OR_RETURN(std::string value, GetNodeAttr<std::string>(node, attr));
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        node.op(), ": value for attr '", attr, "' of \"", value,
        "\" is not in the list of allowed values: \"",
        absl::StrJoin(allowed, "\", \""), "\""));
  }
  return value;
}

// A list(int) attr of 4 values, in the data_format's layout.
absl::StatusOr<std::vector<int64_t>> ReadFour(const NodeDef& node, absl::string_view attr,
                                              absl::string_view tf_name) {
  ASSIGN_OR_RETURN(std::vector<int64_t> v, GetNodeAttr<std::vector<int64_t>>(node, attr));
  if (v.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        node.op(), " requires the ", tf_name, " attribute to contain 4 values, but got: ",
        v.size(), " (", List(v), ")"));
  }
  return v;
}

absl::Status ReadCommon(const NodeDef& node, WindowAttrs* a) {
  a->op = node.op();
  ASSIGN_OR_RETURN(a->data_format, ReadChoice(node, "data_format", {"NHWC", "NCHW"}));
  ASSIGN_OR_RETURN(std::string padding,
                   ReadChoice(node, "padding", {"SAME", "VALID", "EXPLICIT"}));
  if (padding == "EXPLICIT") {
    return absl::UnimplementedError(absl::StrCat(
        node.op(), ": padding \"EXPLICIT\" (explicit_paddings) is not implemented; use "
        "\"SAME\" or \"VALID\", or pad the input with an explicit op first"));
  }
  a->padding = padding == "SAME" ? Padding::kSame : Padding::kValid;
  ASSIGN_OR_RETURN(a->strides, ReadFour(node, "strides", "stride"));
  const Layout l = LayoutOf(*a);
  if (a->strides[l.n] != 1 || a->strides[l.c] != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        node.op(), ": current implementation does not yet support strides in the batch "
        "and depth dimensions; strides ", List(a->strides), " (data_format ",
        a->data_format, ") must have 1 in both"));
  }
  for (int64_t s : a->strides) {
    if (s < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          node.op(), ": stride must be > 0, but got ", s, " in strides ", List(a->strides)));
    }
  }
  a->stride_rows = a->strides[l.h];
  a->stride_cols = a->strides[l.w];
  return absl::OkStatus();
}

// The depth check and its messages, shared by the conv ops.
absl::Status CheckDepths(const WindowAttrs& a, const TensorShape& input,
                         const TensorShape& filter, int64_t in_depth,
                         int64_t filter_depth, int64_t out_depth) {
  if (filter_depth == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        a.op, ": depth of filter must not be 0: filter ", filter.DebugString(),
        " ([filter_rows, filter_cols, in_depth, out_depth]), input ", input.DebugString()));
  }
  if (in_depth == kUnknown || filter_depth == kUnknown) return absl::OkStatus();
  if (in_depth % filter_depth != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        a.op, ": Depth of input (", in_depth, ") is not a multiple of input depth of filter (",
        filter_depth, "): input ", input.DebugString(), ", filter ", filter.DebugString(),
        "; the filter's third dimension must divide the input's depth"));
  }
  const int64_t groups = in_depth / filter_depth;
  if (groups > 0 && out_depth != kUnknown && out_depth % groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        a.op, ": Depth of output (", out_depth, ") is not a multiple of the number of groups (",
        groups, "): input ", input.DebugString(), ", filter ", filter.DebugString()));
  }
  return absl::OkStatus();
}

// `s` with rank 4 (unknown rank: four unknown dims), or InvalidArgument.
absl::StatusOr<TensorShape> Rank4(const WindowAttrs& a, const TensorShape& s,
                                  absl::string_view what, absl::string_view layout,
                                  absl::string_view others) {
  if (s.unknown_rank()) return TensorShape({kUnknown, kUnknown, kUnknown, kUnknown});
  if (s.dims() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        a.op, ": ", what, " must be 4-dimensional ", layout, ", but has shape ",
        s.DebugString(), others));
  }
  return s;
}

absl::StatusOr<WindowDim> Spatial(const WindowAttrs& a, absl::string_view dim,
                                  int64_t input, int64_t size, int64_t dilation,
                                  int64_t stride, absl::string_view shapes) {
  absl::StatusOr<WindowDim> w = WindowedOutputSize(input, size, dilation, stride, a.padding);
  if (!w.ok()) {
    return absl::Status(w.status().code(),
                        absl::StrCat(a.op, ": in the ", dim, " dimension: ",
                                     w.status().message(), "; ", shapes));
  }
  return w;
}

TensorShape OutputShape(const WindowAttrs& a, int64_t n, int64_t h, int64_t w, int64_t c) {
  return a.nhwc() ? TensorShape({n, h, w, c}) : TensorShape({n, c, h, w});
}

}  // namespace

absl::StatusOr<WindowDim> WindowedOutputSize(int64_t input, int64_t size,
                                             int64_t dilation, int64_t stride,
                                             Padding padding) {
  if (stride < 1) {
    return absl::InvalidArgumentError(absl::StrCat("Stride must be > 0, but got ", stride));
  }
  if (dilation < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Dilation rate must be > 0, but got ", dilation));
  }
  if (size < 1 && size != kUnknown) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the window (filter or ksize) must be at least 1 wide, but is ", size));
  }
  if (input < 0 && input != kUnknown) {
    return absl::InvalidArgumentError(absl::StrCat("Input size must be >= 0, but got ", input));
  }
  if (input == kUnknown || size == kUnknown) return WindowDim{kUnknown, 0, 0};
  const __int128 span = (__int128{size} - 1) * dilation + 1;
  if (span > kMaxSpan) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a window of ", size, " taps with dilation ", dilation,
        " spans more than 2^40 inputs; no input can be that large"));
  }
  const int64_t effective = static_cast<int64_t>(span);
  WindowDim d;
  if (padding == Padding::kValid) {
    // TensorFlow's expression, with its truncating division.
    const __int128 out = (__int128{input} - effective + stride) / stride;
    if (out < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Computed output size would be negative: ", static_cast<int64_t>(out),
          " [input_size: ", input, ", effective_filter_size: ", effective,
          ", stride: ", stride, "]"));
    }
    d.output = static_cast<int64_t>(out);
    return d;
  }
  d.output = input == 0 ? 0 : (input - 1) / stride + 1;
  const __int128 needed = __int128{d.output - 1} * stride + effective - input;
  const int64_t total = needed > 0 ? static_cast<int64_t>(needed) : 0;
  d.pad_before = total / 2;
  d.pad_after = total - d.pad_before;
  return d;
}

absl::StatusOr<WindowAttrs> ReadConvAttrs(const NodeDef& node) {
  WindowAttrs a;
  RETURN_IF_ERROR(ReadCommon(node, &a));
  ASSIGN_OR_RETURN(a.dilations, ReadFour(node, "dilations", "dilations"));
  const Layout l = LayoutOf(a);
  if (a.dilations[l.n] != 1 || a.dilations[l.c] != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        node.op(), ": current implementation does not yet support dilations in the batch "
        "and depth dimensions; dilations ", List(a.dilations), " (data_format ",
        a.data_format, ") must have 1 in both"));
  }
  for (int64_t d : a.dilations) {
    if (d < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          node.op(), ": dilated rates should be larger than 0, but dilations are ",
          List(a.dilations)));
    }
  }
  a.dilation_rows = a.dilations[l.h];
  a.dilation_cols = a.dilations[l.w];
  return a;
}

absl::StatusOr<WindowAttrs> ReadPoolAttrs(const NodeDef& node) {
  WindowAttrs a;
  RETURN_IF_ERROR(ReadCommon(node, &a));
  ASSIGN_OR_RETURN(a.ksize, ReadFour(node, "ksize", "ksize"));
  const Layout l = LayoutOf(a);
  for (int i = 0; i < 4; ++i) {
    if (a.ksize[i] < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          node.op(), ": sliding window ksize for dimension ", i, " must be > 0, but ksize is ",
          List(a.ksize)));
    }
  }
  if (a.ksize[l.n] != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        node.op(), ": pooling is not yet supported on the batch dimension; ksize ",
        List(a.ksize), " (data_format ", a.data_format, ") must have 1 there"));
  }
  if (a.ksize[l.c] != 1) {
    return absl::UnimplementedError(absl::StrCat(
        node.op(), ": pooling over the depth dimension (ksize ", List(a.ksize),
        ", data_format ", a.data_format, ") is not implemented; use 1 there"));
  }
  a.window_rows = a.ksize[l.h];
  a.window_cols = a.ksize[l.w];
  a.dilations = {1, 1, 1, 1};
  return a;
}

absl::Status CheckCpuSupported(const WindowAttrs& a) {
  if (!a.nhwc()) {
    return absl::UnimplementedError(absl::StrCat(
        a.op, ": the CPU kernel supports data_format \"NHWC\" only, but the op has "
        "data_format \"", a.data_format, "\"; transpose the input to NHWC"));
  }
  if (a.dilation_rows != 1 || a.dilation_cols != 1) {
    return absl::UnimplementedError(absl::StrCat(
        a.op, ": the CPU kernel supports dilations [1,1,1,1] only, but the op has "
        "dilations ", List(a.dilations)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Window2DDims> ComputeConv2DDims(const TensorShape& input_shape,
                                               const TensorShape& filter_shape,
                                               const WindowAttrs& a) {
  const std::string shapes = absl::StrCat("input ", input_shape.DebugString(), ", filter ",
                                          filter_shape.DebugString());
  ASSIGN_OR_RETURN(TensorShape input,
                   Rank4(a, input_shape, "input",
                         a.nhwc() ? "[batch, in_rows, in_cols, in_depth]"
                                  : "[batch, in_depth, in_rows, in_cols]",
                         absl::StrCat(" (filter ", filter_shape.DebugString(), ")")));
  ASSIGN_OR_RETURN(TensorShape filter,
                   Rank4(a, filter_shape, "filter",
                         "[filter_rows, filter_cols, in_depth, out_depth]",
                         absl::StrCat(" (input ", input_shape.DebugString(), ")")));
  const Layout l = LayoutOf(a);
  Window2DDims d;
  d.batch = input.dim_size(l.n);
  d.in_rows = input.dim_size(l.h);
  d.in_cols = input.dim_size(l.w);
  d.in_depth = input.dim_size(l.c);
  d.filter_rows = filter.dim_size(0);
  d.filter_cols = filter.dim_size(1);
  d.filter_depth = filter.dim_size(2);
  d.out_depth = filter.dim_size(3);
  d.stride_rows = a.stride_rows;
  d.stride_cols = a.stride_cols;
  RETURN_IF_ERROR(
      CheckDepths(a, input_shape, filter_shape, d.in_depth, d.filter_depth, d.out_depth));
  ASSIGN_OR_RETURN(d.rows, Spatial(a, "rows", d.in_rows, d.filter_rows, a.dilation_rows,
                                   a.stride_rows, shapes));
  ASSIGN_OR_RETURN(d.cols, Spatial(a, "cols", d.in_cols, d.filter_cols, a.dilation_cols,
                                   a.stride_cols, shapes));
  d.output_shape = OutputShape(a, d.batch, d.rows.output, d.cols.output, d.out_depth);
  return d;
}

absl::StatusOr<Window2DDims> ComputeConv2DBackpropDims(const TensorShape& input,
                                                       const TensorShape& filter,
                                                       const TensorShape& out_backprop,
                                                       const WindowAttrs& a) {
  ASSIGN_OR_RETURN(Window2DDims d, ComputeConv2DDims(input, filter, a));
  if (out_backprop.unknown_rank()) return d;
  bool fits = out_backprop.dims() == 4;
  for (int i = 0; fits && i < 4; ++i) {
    const int64_t got = out_backprop.dim_size(i), want = d.output_shape.dim_size(i);
    fits = got == kUnknown || want == kUnknown || got == want;
  }
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat(
        a.op, ": Size of out_backprop doesn't match computed: out_backprop has shape ",
        out_backprop.DebugString(), ", but the convolution of input ", input.DebugString(),
        " by filter ", filter.DebugString(), " with strides ", List(a.strides),
        " and padding ", a.padding == Padding::kSame ? "SAME" : "VALID", " has shape ",
        d.output_shape.DebugString()));
  }
  return d;
}

absl::StatusOr<Window2DDims> ComputePool2DDims(const TensorShape& input_shape,
                                               const WindowAttrs& a) {
  ASSIGN_OR_RETURN(TensorShape input,
                   Rank4(a, input_shape, "input",
                         a.nhwc() ? "[batch, rows, cols, depth]" : "[batch, depth, rows, cols]",
                         ""));
  const Layout l = LayoutOf(a);
  Window2DDims d;
  d.batch = input.dim_size(l.n);
  d.in_rows = input.dim_size(l.h);
  d.in_cols = input.dim_size(l.w);
  d.in_depth = d.filter_depth = d.out_depth = input.dim_size(l.c);
  d.filter_rows = a.window_rows;
  d.filter_cols = a.window_cols;
  d.stride_rows = a.stride_rows;
  d.stride_cols = a.stride_cols;
  const std::string shapes =
      absl::StrCat("input ", input_shape.DebugString(), ", ksize ", List(a.ksize));
  ASSIGN_OR_RETURN(d.rows, Spatial(a, "rows", d.in_rows, d.filter_rows, 1, a.stride_rows, shapes));
  ASSIGN_OR_RETURN(d.cols, Spatial(a, "cols", d.in_cols, d.filter_cols, 1, a.stride_cols, shapes));
  d.output_shape = OutputShape(a, d.batch, d.rows.output, d.cols.output, d.out_depth);
  return d;
}

absl::StatusOr<TensorShape> ShapeFromSizes(const Tensor& sizes, absl::string_view op,
                                           absl::string_view what) {
  if (sizes.dtype() != DT_INT32 || sizes.dims() != 1 || sizes.NumElements() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": ", what, " must be an int32 vector of 4 values, but is ",
        DataTypeString(sizes.dtype()), " of shape ", sizes.shape().DebugString()));
  }
  std::vector<int64_t> dims(sizes.data<int32_t>(), sizes.data<int32_t>() + 4);
  for (int64_t v : dims) {
    if (v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": ", what, " must not be negative, but is ", List(dims)));
    }
  }
  absl::StatusOr<TensorShape> shape = TensorShape::FromDims(dims);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": ", what, " ", List(dims), ": ", shape.status().message()));
  }
  return shape;
}

}  // namespace window
}  // namespace tensorflow_ipu
