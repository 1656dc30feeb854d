#include "tensorflow_ipu/cc/ops/nn_ops.h"

#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace ops {

Softmax::Softmax(const Scope& scope, Input logits)
    : SingleOutputOp(BuildOp(scope, "Softmax", {logits})) {}

LogSoftmax::LogSoftmax(const Scope& scope, Input logits)
    : SingleOutputOp(BuildOp(scope, "LogSoftmax", {logits})) {}

SparseSoftmaxCrossEntropyWithLogits::SparseSoftmaxCrossEntropyWithLogits(
    const Scope& scope, Input features, Input labels)
    : operation(BuildOp(scope, "SparseSoftmaxCrossEntropyWithLogits",
                        {features, labels})) {
  if (operation.valid()) {
    loss = Output(operation, 0);
    backprop = Output(operation, 1);
  }
}

SoftmaxCrossEntropyWithLogits::SoftmaxCrossEntropyWithLogits(
    const Scope& scope, Input features, Input labels)
    : operation(BuildOp(scope, "SoftmaxCrossEntropyWithLogits",
                        {features, labels})) {
  if (operation.valid()) {
    loss = Output(operation, 0);
    backprop = Output(operation, 1);
  }
}

namespace {

AttrList ConvAttrList(const std::vector<int64_t>& strides, absl::string_view padding,
                      const Conv2DAttrs& attrs) {
  return {{"strides", MakeAttrValue(strides)},
          {"padding", MakeAttrValue(padding)},
          {"use_cudnn_on_gpu", MakeAttrValue(attrs.use_cudnn_on_gpu_)},
          {"explicit_paddings", MakeAttrValue(attrs.explicit_paddings_)},
          {"data_format", MakeAttrValue(attrs.data_format_)},
          {"dilations", MakeAttrValue(attrs.dilations_)}};
}

AttrList PoolAttrList(const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                      absl::string_view padding, const MaxPoolAttrs& attrs) {
  return {{"ksize", MakeAttrValue(ksize)},
          {"strides", MakeAttrValue(strides)},
          {"padding", MakeAttrValue(padding)},
          {"data_format", MakeAttrValue(attrs.data_format_)}};
}

}  // namespace

Conv2D::Conv2D(const Scope& scope, Input input, Input filter,
               const std::vector<int64_t>& strides, absl::string_view padding,
               const Attrs& attrs)
    : SingleOutputOp(BuildOp(scope, "Conv2D", {input, filter},
                             ConvAttrList(strides, padding, attrs))) {}

Conv2DBackpropInput::Conv2DBackpropInput(const Scope& scope, Input input_sizes, Input filter,
                                         Input out_backprop,
                                         const std::vector<int64_t>& strides,
                                         absl::string_view padding, const Attrs& attrs)
    : SingleOutputOp(BuildOp(scope, "Conv2DBackpropInput", {input_sizes, filter, out_backprop},
                             ConvAttrList(strides, padding, attrs))) {}

Conv2DBackpropFilter::Conv2DBackpropFilter(const Scope& scope, Input input, Input filter_sizes,
                                           Input out_backprop,
                                           const std::vector<int64_t>& strides,
                                           absl::string_view padding, const Attrs& attrs)
    : SingleOutputOp(BuildOp(scope, "Conv2DBackpropFilter",
                             {input, filter_sizes, out_backprop},
                             ConvAttrList(strides, padding, attrs))) {}

MaxPool::MaxPool(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
                 const std::vector<int64_t>& strides, absl::string_view padding,
                 const Attrs& attrs)
    : SingleOutputOp(
          BuildOp(scope, "MaxPool", {input}, PoolAttrList(ksize, strides, padding, attrs))) {}

MaxPoolGrad::MaxPoolGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
                         const std::vector<int64_t>& ksize,
                         const std::vector<int64_t>& strides, absl::string_view padding,
                         const Attrs& attrs)
    : SingleOutputOp(BuildOp(scope, "MaxPoolGrad", {orig_input, orig_output, grad},
                             PoolAttrList(ksize, strides, padding, attrs))) {}

}  // namespace ops
}  // namespace tensorflow_ipu
