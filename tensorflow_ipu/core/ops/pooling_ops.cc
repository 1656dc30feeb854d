// 2-D max pooling: MaxPool and its gradient MaxPoolGrad. Names, inputs,
// attrs and defaults follow TensorFlow's; the geometry is
// core/kernels/window_util.h, shared with the kernels.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/kernels/window_util.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

// input [batch, rows, cols, depth] (NHWC) -> [batch, out_rows, out_cols, depth].
absl::Status MaxPoolShape(InferenceContext* c) {
  ASSIGN_OR_RETURN(window::WindowAttrs attrs, window::ReadPoolAttrs(c->node()));
  ASSIGN_OR_RETURN(window::Window2DDims d,
                   window::ComputePool2DDims(c->input_shape(0), attrs));
  c->set_output(0, d.output_shape);
  return absl::OkStatus();
}

// The gradient has orig_input's shape; orig_output and grad must have the
// shape MaxPool gives for orig_input.
absl::Status MaxPoolGradShape(InferenceContext* c) {
  ASSIGN_OR_RETURN(window::WindowAttrs attrs, window::ReadPoolAttrs(c->node()));
  const TensorShape& input = c->input_shape(0);
  ASSIGN_OR_RETURN(window::Window2DDims d, window::ComputePool2DDims(input, attrs));
  for (int i : {1, 2}) {
    if (!c->input_shape(i).IsCompatibleWith(d.output_shape)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "MaxPoolGrad: ", i == 1 ? "orig_output" : "grad", " has shape ",
          c->input_shape(i).DebugString(), ", but the max pool of orig_input ",
          input.DebugString(), " has shape ", d.output_shape.DebugString()));
    }
  }
  c->set_output(0, input.unknown_rank() ? TensorShape({-1, -1, -1, -1}) : input);
  return absl::OkStatus();
}

// The attrs of both pooling ops, with TensorFlow's defaults.
OpDefBuilder PoolOp(const char* name) {
  return OpDefBuilder(name)
      .TypeAttr("T", {DT_HALF, DT_FLOAT, DT_DOUBLE}, DT_FLOAT)
      .Attr("ksize", "list(int)")
      .Attr("strides", "list(int)")
      .Attr("padding", "string")
      // Read only with padding "EXPLICIT", which the ops refuse
      // (Unimplemented); declared so that TensorFlow's graphs load.
      .Attr("explicit_paddings", "list(int)", MakeAttrValue(std::vector<int64_t>{}))
      .Attr("data_format", "string", MakeAttrValue("NHWC"));
}

REGISTER_OP(PoolOp("MaxPool")
                .Input("input", "T")
                .Output("output", "T")
                .SetShapeFn(MaxPoolShape));

REGISTER_OP(PoolOp("MaxPoolGrad")
                .Input("orig_input", "T")
                .Input("orig_output", "T")
                .Input("grad", "T")
                .Output("output", "T")
                .SetShapeFn(MaxPoolGradShape));

}  // namespace
}  // namespace tensorflow_ipu
