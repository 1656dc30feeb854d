#include "tensorflow_ipu/keras/layers/conv2d.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

absl::StatusOr<std::string> PaddingAttr(const std::string& layer, const std::string& padding) {
  if (padding == "valid") return std::string("VALID");
  if (padding == "same") return std::string("SAME");
  return absl::InvalidArgumentError(absl::StrCat(
      "The `padding` argument of layer \"", layer, "\" must be one of \"valid\", \"same\". "
      "Received: ", padding));
}

absl::StatusOr<int64_t> WindowOutputSize(const std::string& layer, int64_t in,
                                         int64_t window, int64_t stride,
                                         const std::string& padding) {
  ASSIGN_OR_RETURN(std::string attr, PaddingAttr(layer, padding));
  if (window < 1 || stride < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layer \"", layer, "\": window sizes and strides must be positive, got window ",
        window, " and stride ", stride));
  }
  // Without sums that could overflow for windows or strides near 2^63.
  const int64_t out = attr == "SAME" ? in / stride + (in % stride != 0 ? 1 : 0)
                      : in < window  ? 0
                                     : (in - window) / stride + 1;
  if (out < 1 || in < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layer \"", layer, "\": a window of ", window, " does not fit in an input of ", in,
        " with padding \"", padding, "\"; the output would be empty"));
  }
  return out;
}

Conv2DLayer::Conv2DLayer(int64_t filters, std::array<int64_t, 2> kernel_size,
                         Conv2DOptions options)
    : ActivatedLayer("Conv2D", options.name, options.activation),
      filters_(filters),
      kernel_size_(kernel_size),
      options_(std::move(options)) {}

absl::Status Conv2DLayer::Build(const Shape& input_shape) {
  if (filters_ < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid value for argument `filters` of layer \"", name(),
        "\". Expected a strictly positive value. Received filters=", filters_));
  }
  if (input_shape.size() != 4 || input_shape[3] < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input 0 of layer \"", name(), "\" is incompatible with the layer: expected "
        "ndim=4 (batch, height, width, channels), found ndim=", input_shape.size(),
        ". Full shape received: ", ShapeString(input_shape)));
  }
  return AddKernelAndBias({kernel_size_[0], kernel_size_[1], input_shape[3], filters_},
                          options_.use_bias, options_.kernel_initializer,
                          options_.bias_initializer);
}

absl::StatusOr<Shape> Conv2DLayer::ComputeOutputShape(const Shape& in) const {
  ASSIGN_OR_RETURN(int64_t h, WindowOutputSize(name(), in[1], kernel_size_[0],
                                               options_.strides[0], options_.padding));
  ASSIGN_OR_RETURN(int64_t w, WindowOutputSize(name(), in[2], kernel_size_[1],
                                               options_.strides[1], options_.padding));
  return Shape{in[0], h, w, filters_};
}

absl::StatusOr<Output> Conv2DLayer::CallWithoutActivation(const Scope& scope,
                                                          const Output& input,
                                                          const std::vector<Output>& weights,
                                                          bool) const {
  ASSIGN_OR_RETURN(std::string padding, PaddingAttr(name(), options_.padding));
  return MaybeAddBias(scope,
                      ops::Conv2D(scope, input, weights[0],
                                  {1, options_.strides[0], options_.strides[1], 1}, padding),
                      weights);
}

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu
