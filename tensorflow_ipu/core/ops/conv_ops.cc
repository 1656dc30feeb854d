// 2-D convolution ops: Conv2D and its two gradients, Conv2DBackpropInput
// and Conv2DBackpropFilter. Names, inputs, attrs and defaults follow
// TensorFlow's; the geometry (output sizes, SAME padding, depth checks) is
// core/kernels/window_util.h, shared with the kernels.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/kernels/window_util.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// input [batch, in_rows, in_cols, in_depth] (NHWC) conv filter
// [filter_rows, filter_cols, in_depth / groups, out_depth]
// -> [batch, out_rows, out_cols, out_depth].
absl::Status Conv2DShape(InferenceContext* c) {
  ASSIGN_OR_RETURN(window::WindowAttrs attrs, window::ReadConvAttrs(c->node()));
  ASSIGN_OR_RETURN(window::Window2DDims d,
                   window::ComputeConv2DDims(c->input_shape(0), c->input_shape(1), attrs));
  c->set_output(0, d.output_shape);
  return absl::OkStatus();
}

// The shape held by input `i` (input_sizes, filter_sizes): its value when
// it is a constant, else four unknown dimensions.
absl::StatusOr<TensorShape> SizesInput(InferenceContext* c, int i, absl::string_view what) {
  const TensorShape& s = c->input_shape(i);
  if (!s.unknown_rank() && (s.dims() != 1 || (s.dim_size(0) != kUnknown && s.dim_size(0) != 4))) {
    return absl::InvalidArgumentError(absl::StrCat(
        c->node().op(), ": ", what, " must be an int32 vector of 4 values, but has shape ",
        s.DebugString()));
  }
  if (const Tensor* t = c->input_tensor(i)) {
    return window::ShapeFromSizes(*t, c->node().op(), what);
  }
  return TensorShape({kUnknown, kUnknown, kUnknown, kUnknown});
}

// The gradient with respect to the input has the input's shape, given by
// input_sizes; the shapes are checked against each other when known.
absl::Status Conv2DBackpropInputShape(InferenceContext* c) {
  ASSIGN_OR_RETURN(window::WindowAttrs attrs, window::ReadConvAttrs(c->node()));
  ASSIGN_OR_RETURN(TensorShape input, SizesInput(c, 0, "input_sizes"));
  RETURN_IF_ERROR(window::ComputeConv2DBackpropDims(input, c->input_shape(1),
                                                    c->input_shape(2), attrs)
                      .status());
  c->set_output(0, input);
  return absl::OkStatus();
}

// The gradient with respect to the filter has the filter's shape, given by
// filter_sizes.
absl::Status Conv2DBackpropFilterShape(InferenceContext* c) {
  ASSIGN_OR_RETURN(window::WindowAttrs attrs, window::ReadConvAttrs(c->node()));
  ASSIGN_OR_RETURN(TensorShape filter, SizesInput(c, 1, "filter_sizes"));
  RETURN_IF_ERROR(window::ComputeConv2DBackpropDims(c->input_shape(0), filter,
                                                    c->input_shape(2), attrs)
                      .status());
  c->set_output(0, filter);
  return absl::OkStatus();
}

// The attrs every convolution op has, with TensorFlow's defaults.
OpDefBuilder ConvOp(const char* name) {
  return OpDefBuilder(name)
      .TypeAttr("T", {DT_HALF, DT_FLOAT, DT_DOUBLE})
      .Attr("strides", "list(int)")
      .Attr("use_cudnn_on_gpu", "bool", MakeAttrValue(true))
      .Attr("padding", "string")
      // Read only with padding "EXPLICIT", which the ops refuse
      // (Unimplemented); declared so that TensorFlow's graphs load.
      .Attr("explicit_paddings", "list(int)", MakeAttrValue(std::vector<int64_t>{}))
      .Attr("data_format", "string", MakeAttrValue("NHWC"))
      .Attr("dilations", "list(int)", MakeAttrValue(std::vector<int64_t>{1, 1, 1, 1}));
}

REGISTER_OP(ConvOp("Conv2D")
                .Input("input", "T")
                .Input("filter", "T")
                .Output("output", "T")
                .SetShapeFn(Conv2DShape));

REGISTER_OP(ConvOp("Conv2DBackpropInput")
                .Input("input_sizes", DT_INT32)
                .Input("filter", "T")
                .Input("out_backprop", "T")
                .Output("output", "T")
                .SetShapeFn(Conv2DBackpropInputShape));

REGISTER_OP(ConvOp("Conv2DBackpropFilter")
                .Input("input", "T")
                .Input("filter_sizes", DT_INT32)
                .Input("out_backprop", "T")
                .Output("output", "T")
                .SetShapeFn(Conv2DBackpropFilterShape));

}  // namespace
}  // namespace tensorflow_ipu
