#include "tensorflow_ipu/keras/layers/dense.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

DenseLayer::DenseLayer(int64_t units, DenseOptions options)
    : ActivatedLayer("Dense", options.name, options.activation),
      units_(units),
      options_(std::move(options)) {}

absl::Status DenseLayer::Build(const Shape& input_shape) {
  if (units_ < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Received an invalid value for `units` of layer \"", name(), "\", expected a "
        "positive integer. Received: units=", units_));
  }
  if (input_shape.size() != 2 || input_shape[1] < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input 0 of layer \"", name(), "\" is incompatible with the layer: expected "
        "min_ndim=2 and a known last dimension, found shape=", ShapeString(input_shape),
        ". Dense takes [batch, features]; put a Flatten layer before it"));
  }
  return AddKernelAndBias({input_shape[1], units_}, options_.use_bias,
                          options_.kernel_initializer, options_.bias_initializer);
}

absl::StatusOr<Shape> DenseLayer::ComputeOutputShape(const Shape& input_shape) const {
  return Shape{input_shape[0], units_};
}

absl::StatusOr<Output> DenseLayer::CallWithoutActivation(const Scope& scope,
                                                         const Output& input,
                                                         const std::vector<Output>& weights,
                                                         bool) const {
  return MaybeAddBias(scope, ops::MatMul(scope, input, weights[0]), weights);
}

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu
