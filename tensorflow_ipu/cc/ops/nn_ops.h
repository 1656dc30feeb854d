// Client wrappers of the neural-network ops: softmax, the softmax
// cross-entropy losses, 2-D convolution and max pooling (with their
// gradient ops). Names, inputs and attrs follow TensorFlow's C++ API.
//
//   auto logits = ops::Placeholder(s, DT_FLOAT, ops::Placeholder::Shape({-1, 10}));
//   auto labels = ops::Placeholder(s, DT_INT32, ops::Placeholder::Shape({-1}));
//   auto probs = ops::Softmax(s, logits);
//   auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, labels);
//   // xent.loss: [batch]; xent.backprop: d(loss)/d(logits), [batch, 10]
//
//   auto images = ops::Placeholder(s, DT_FLOAT, ops::Placeholder::Shape({-1, 28, 28, 1}));
//   auto conv = ops::Conv2D(s, images, filter, {1, 1, 1, 1}, "VALID");  // [?,26,26,32]
//   auto pool = ops::MaxPool(s, conv, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");  // [?,13,13,32]
#ifndef TENSORFLOW_IPU_CC_OPS_NN_OPS_H_
#define TENSORFLOW_IPU_CC_OPS_NN_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tensorflow_ipu/cc/ops/op_builder.h"

namespace tensorflow_ipu {
namespace ops {

// exp(logits) / sum(exp(logits)) over the last dim.
class Softmax : public SingleOutputOp {
 public:
  Softmax(const Scope& scope, Input logits);
};

// logits - log(sum(exp(logits))) over the last dim.
class LogSoftmax : public SingleOutputOp {
 public:
  LogSoftmax(const Scope& scope, Input logits);
};

// features [batch, classes]; labels [batch] of class indices (int32/int64).
// loss [batch]; backprop [batch, classes] = softmax(features) - one_hot.
// A label outside [0, classes) fails the run with InvalidArgument.
class SparseSoftmaxCrossEntropyWithLogits {
 public:
  SparseSoftmaxCrossEntropyWithLogits(const Scope& scope, Input features,
                                      Input labels);
  Operation operation;
  Output loss;
  Output backprop;
};

// features, labels [batch, classes] (broadcastable; each labels row a
// distribution). loss [batch]; backprop = softmax(features) - labels.
class SoftmaxCrossEntropyWithLogits {
 public:
  SoftmaxCrossEntropyWithLogits(const Scope& scope, Input features,
                                Input labels);
  Operation operation;
  Output loss;
  Output backprop;
};

// The optional attrs of Conv2D and its gradient ops, with TensorFlow's
// names and defaults.
struct Conv2DAttrs {
  // Accepted and ignored, as on TensorFlow's CPU (default true).
  Conv2DAttrs UseCudnnOnGpu(bool x) const {
    Conv2DAttrs a = *this;
    a.use_cudnn_on_gpu_ = x;
    return a;
  }
  // Only read with padding "EXPLICIT", which is not implemented.
  Conv2DAttrs ExplicitPaddings(const std::vector<int64_t>& x) const {
    Conv2DAttrs a = *this;
    a.explicit_paddings_ = x;
    return a;
  }
  // "NHWC" (default) or "NCHW"; the CPU kernels implement NHWC.
  Conv2DAttrs DataFormat(const std::string& x) const {
    Conv2DAttrs a = *this;
    a.data_format_ = x;
    return a;
  }
  // 4 values in data_format's order (default all 1, which the CPU kernels
  // implement).
  Conv2DAttrs Dilations(const std::vector<int64_t>& x) const {
    Conv2DAttrs a = *this;
    a.dilations_ = x;
    return a;
  }
  bool use_cudnn_on_gpu_ = true;
  std::vector<int64_t> explicit_paddings_;
  std::string data_format_ = "NHWC";
  std::vector<int64_t> dilations_ = {1, 1, 1, 1};
};

// 2-D convolution of input [batch, in_rows, in_cols, in_depth] (NHWC) by
// filter [filter_rows, filter_cols, in_depth, out_depth]: output
// [batch, out_rows, out_cols, out_depth]. strides: 4 values in
// data_format's order, 1 for batch and depth; padding "SAME" (output
// ceil(in / stride), zero padding split with more at the bottom/right) or
// "VALID" (no padding).
class Conv2D : public SingleOutputOp {
 public:
  using Attrs = Conv2DAttrs;
  static Attrs UseCudnnOnGpu(bool x) { return Attrs().UseCudnnOnGpu(x); }
  static Attrs ExplicitPaddings(const std::vector<int64_t>& x) {
    return Attrs().ExplicitPaddings(x);
  }
  static Attrs DataFormat(const std::string& x) { return Attrs().DataFormat(x); }
  static Attrs Dilations(const std::vector<int64_t>& x) { return Attrs().Dilations(x); }
  Conv2D(const Scope& scope, Input input, Input filter, const std::vector<int64_t>& strides,
         absl::string_view padding, const Attrs& attrs = Attrs());
};

// The gradient of Conv2D with respect to its input: input_sizes (an int32
// vector, the input's shape), filter, and out_backprop (the gradient of
// Conv2D's output) -> a tensor of shape input_sizes.
class Conv2DBackpropInput : public SingleOutputOp {
 public:
  using Attrs = Conv2DAttrs;
  static Attrs UseCudnnOnGpu(bool x) { return Attrs().UseCudnnOnGpu(x); }
  static Attrs ExplicitPaddings(const std::vector<int64_t>& x) {
    return Attrs().ExplicitPaddings(x);
  }
  static Attrs DataFormat(const std::string& x) { return Attrs().DataFormat(x); }
  static Attrs Dilations(const std::vector<int64_t>& x) { return Attrs().Dilations(x); }
  Conv2DBackpropInput(const Scope& scope, Input input_sizes, Input filter,
                      Input out_backprop, const std::vector<int64_t>& strides,
                      absl::string_view padding, const Attrs& attrs = Attrs());
};

// The gradient of Conv2D with respect to its filter: input, filter_sizes
// (an int32 vector, the filter's shape) and out_backprop -> a tensor of
// shape filter_sizes.
class Conv2DBackpropFilter : public SingleOutputOp {
 public:
  using Attrs = Conv2DAttrs;
  static Attrs UseCudnnOnGpu(bool x) { return Attrs().UseCudnnOnGpu(x); }
  static Attrs ExplicitPaddings(const std::vector<int64_t>& x) {
    return Attrs().ExplicitPaddings(x);
  }
  static Attrs DataFormat(const std::string& x) { return Attrs().DataFormat(x); }
  static Attrs Dilations(const std::vector<int64_t>& x) { return Attrs().Dilations(x); }
  Conv2DBackpropFilter(const Scope& scope, Input input, Input filter_sizes,
                       Input out_backprop, const std::vector<int64_t>& strides,
                       absl::string_view padding, const Attrs& attrs = Attrs());
};

// The optional attrs of MaxPool and MaxPoolGrad.
struct MaxPoolAttrs {
  // "NHWC" (default) or "NCHW"; the CPU kernels implement NHWC.
  MaxPoolAttrs DataFormat(const std::string& x) const {
    MaxPoolAttrs a = *this;
    a.data_format_ = x;
    return a;
  }
  std::string data_format_ = "NHWC";
};

// The maximum over windows of ksize (4 values in data_format's order, 1
// for batch and depth) moved by strides, with padding "SAME" or "VALID"
// as Conv2D's (padding positions are not part of any window).
class MaxPool : public SingleOutputOp {
 public:
  using Attrs = MaxPoolAttrs;
  static Attrs DataFormat(const std::string& x) { return Attrs().DataFormat(x); }
  MaxPool(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
          const std::vector<int64_t>& strides, absl::string_view padding,
          const Attrs& attrs = Attrs());
};

// The gradient of MaxPool: each value of grad (shaped like MaxPool's
// output) goes to the first maximum of its window in orig_input (row-major
// order); the result has orig_input's shape.
class MaxPoolGrad : public SingleOutputOp {
 public:
  using Attrs = MaxPoolAttrs;
  static Attrs DataFormat(const std::string& x) { return Attrs().DataFormat(x); }
  MaxPoolGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
              const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
              absl::string_view padding, const Attrs& attrs = Attrs());
};

}  // namespace ops
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CC_OPS_NN_OPS_H_
