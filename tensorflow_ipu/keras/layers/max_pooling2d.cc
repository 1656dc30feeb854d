#include "tensorflow_ipu/keras/layers/max_pooling2d.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/keras/layers/conv2d.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

MaxPooling2DLayer::MaxPooling2DLayer(std::array<int64_t, 2> pool_size,
                                     MaxPooling2DOptions options)
    : Layer("MaxPooling2D", options.name), pool_size_(pool_size), options_(std::move(options)) {}

std::array<int64_t, 2> MaxPooling2DLayer::strides() const {
  return options_.strides.value_or(pool_size_);
}

absl::Status MaxPooling2DLayer::Build(const Shape& input_shape) {
  if (input_shape.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input 0 of layer \"", name(), "\" is incompatible with the layer: expected "
        "ndim=4 (batch, height, width, channels), found ndim=", input_shape.size(),
        ". Full shape received: ", ShapeString(input_shape)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> MaxPooling2DLayer::ComputeOutputShape(const Shape& in) const {
  const std::array<int64_t, 2> s = strides();
  ASSIGN_OR_RETURN(int64_t h,
                   WindowOutputSize(name(), in[1], pool_size_[0], s[0], options_.padding));
  ASSIGN_OR_RETURN(int64_t w,
                   WindowOutputSize(name(), in[2], pool_size_[1], s[1], options_.padding));
  return Shape{in[0], h, w, in[3]};
}

absl::StatusOr<Output> MaxPooling2DLayer::Call(const Scope& scope, const Output& input,
                                               const std::vector<Output>&, bool) const {
  ASSIGN_OR_RETURN(std::string padding, PaddingAttr(name(), options_.padding));
  const std::array<int64_t, 2> s = strides();
  return Output(ops::MaxPool(scope, input, {1, pool_size_[0], pool_size_[1], 1},
                             {1, s[0], s[1], 1}, padding));
}

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu
