// Sliding-window geometry shared by the 2-D convolution and max-pooling ops'
// shape functions and CPU kernels: their attrs (strides, padding,
// data_format, dilations, ksize) read and checked in one place, and
// TensorFlow's rule for the output size and padding of a window sliding
// over one dimension, so that graph building and running agree.
//
//   ASSIGN_OR_RETURN(window::WindowAttrs attrs, window::ReadConvAttrs(node));
//   ASSIGN_OR_RETURN(window::Window2DDims d,
//                    window::ComputeConv2DDims(input_shape, filter_shape, attrs));
//   // d.output_shape: [batch, out_rows, out_cols, out_depth] for NHWC
//
// Shapes may be partial (graph edges): an unknown dimension gives unknown
// (kUnknownDim) results where it matters and is skipped by the checks.
#ifndef TENSORFLOW_IPU_CORE_KERNELS_WINDOW_UTIL_H_
#define TENSORFLOW_IPU_CORE_KERNELS_WINDOW_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/proto/node_def.pb.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/core/tensor_shape.h"

namespace tensorflow_ipu {
namespace window {

enum class Padding { kValid, kSame };

// A window's output size along one dimension and the implicit zero (or,
// for pooling, ignored) padding before and after the input.
struct WindowDim {
  int64_t output = 0;
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};

// TensorFlow's rule, for a window of `size` taps `dilation` apart (so
// spanning (size - 1) * dilation + 1 inputs) moved `stride` at a time:
//   VALID: output = (input - span + stride) / stride, no padding;
//          InvalidArgument "Computed output size would be negative" when
//          that is below 0 (an input shorter than the span by a stride or
//          more; shorter by less gives an empty output, as in TensorFlow).
//   SAME:  output = ceil(input / stride);
//          pad_total = max((output - 1) * stride + span - input, 0),
//          pad_before = pad_total / 2, pad_after = the rest (the larger).
// An unknown input (kUnknownDim) gives an unknown output and no padding.
// stride, dilation and size must be > 0, and the span at most 2^40
// (InvalidArgument otherwise).
absl::StatusOr<WindowDim> WindowedOutputSize(int64_t input, int64_t size,
                                             int64_t dilation, int64_t stride,
                                             Padding padding);

// The attrs of Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, MaxPool
// and MaxPoolGrad in the spatial terms the kernels use.
struct WindowAttrs {
  std::string op;           // the node's op, for messages
  std::string data_format;  // "NHWC" or "NCHW"
  Padding padding = Padding::kValid;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;  // 1 for pooling
  int64_t window_rows = 1, window_cols = 1;      // pooling's ksize; 1 for conv
  // As given, for messages.
  std::vector<int64_t> strides, dilations, ksize;

  bool nhwc() const { return data_format == "NHWC"; }
};

// Reads the convolution ops' strides, padding, data_format and dilations.
// InvalidArgument (TensorFlow's wording) for a list that does not have 4
// values, a batch or depth stride or dilation other than 1, a stride or
// dilation below 1, or a padding / data_format outside the allowed values;
// Unimplemented for padding "EXPLICIT".
absl::StatusOr<WindowAttrs> ReadConvAttrs(const NodeDef& node);

// Reads the pooling ops' ksize, strides, padding and data_format, with the
// same checks; a ksize below 1 or over the batch is InvalidArgument, one
// over the depth (depth-wise pooling) Unimplemented.
absl::StatusOr<WindowAttrs> ReadPoolAttrs(const NodeDef& node);

// OK for the attrs the CPU kernels implement (data_format "NHWC", dilations
// of 1); otherwise Unimplemented naming the attr, its value and what is
// supported.
absl::Status CheckCpuSupported(const WindowAttrs& attrs);

// The dimensions of a 2-D window op in NHWC terms, whatever the layout.
struct Window2DDims {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  // The filter's (for pooling: ksize's) spatial size; filter_depth is the
  // filter's input depth (pooling: in_depth).
  int64_t filter_rows = 0, filter_cols = 0, filter_depth = 0;
  int64_t out_depth = 0;
  int64_t stride_rows = 1, stride_cols = 1;
  WindowDim rows, cols;
  // [batch, out_rows, out_cols, out_depth] in the attrs' data_format.
  TensorShape output_shape;
};

// Conv2D's dimensions for `input` (4-D, in the data_format's layout) and
// `filter` ([filter_rows, filter_cols, in_depth / groups, out_depth]).
// InvalidArgument naming both shapes when a rank is not 4, the filter's
// input depth is 0, the input depth is not a multiple of it ("Depth of
// input (3) is not a multiple of input depth of filter (2)"), the output
// depth is not a multiple of the groups, or the window does not fit.
absl::StatusOr<Window2DDims> ComputeConv2DDims(const TensorShape& input,
                                               const TensorShape& filter,
                                               const WindowAttrs& attrs);

// The same for a backprop op: also checks that `out_backprop` has the
// shape the convolution of `input` by `filter` gives (TensorFlow's "Size of
// out_backprop doesn't match computed", with all three shapes).
absl::StatusOr<Window2DDims> ComputeConv2DBackpropDims(
    const TensorShape& input, const TensorShape& filter,
    const TensorShape& out_backprop, const WindowAttrs& attrs);

// MaxPool's dimensions for a 4-D `input`.
absl::StatusOr<Window2DDims> ComputePool2DDims(const TensorShape& input,
                                               const WindowAttrs& attrs);

// A 4-D shape from an int32 vector of sizes (Conv2DBackpropInput's
// input_sizes, Conv2DBackpropFilter's filter_sizes; `what` names it):
// InvalidArgument unless it is an int32 vector of 4 non-negative values.
absl::StatusOr<TensorShape> ShapeFromSizes(const Tensor& sizes,
                                           absl::string_view op,
                                           absl::string_view what);

}  // namespace window
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_WINDOW_UTIL_H_
