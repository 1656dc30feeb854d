#include "tensorflow_ipu/keras/layers/dense.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/keras/activations.h"
#include "tensorflow_ipu/keras/initializers.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

DenseLayer::DenseLayer(int64_t units, DenseOptions options)
    : Layer("Dense", options.name), units_(units), options_(std::move(options)) {}

absl::Status DenseLayer::Build(const Shape& input_shape) {
  if (units_ < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Received an invalid value for `units` of layer \"", name(), "\", expected a "
        "positive integer. Received: units=", units_));
  }
  RETURN_IF_ERROR(activations::Validate(options_.activation));
  if (input_shape.size() != 2 || input_shape[1] < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input 0 of layer \"", name(), "\" is incompatible with the layer: expected "
        "min_ndim=2 and a known last dimension, found shape=", ShapeString(input_shape),
        ". Dense takes [batch, features]; put a Flatten layer before it"));
  }
  ASSIGN_OR_RETURN(Initializer kernel,
                   initializers::Get(options_.kernel_initializer, name(), "kernel"));
  AddWeight("kernel", {input_shape[1], units_}, kernel);
  if (options_.use_bias) {
    ASSIGN_OR_RETURN(Initializer bias,
                     initializers::Get(options_.bias_initializer, name(), "bias"));
    AddWeight("bias", {units_}, bias);
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> DenseLayer::ComputeOutputShape(const Shape& input_shape) const {
  return Shape{input_shape[0], units_};
}

absl::StatusOr<Output> DenseLayer::CallWithoutActivation(const Scope& scope,
                                                         const Output& input,
                                                         const std::vector<Output>& weights,
                                                         bool) const {
  Output y = ops::MatMul(scope, input, weights[0]);
  if (options_.use_bias) y = ops::BiasAdd(scope, y, weights[1]);
  return y;
}

absl::StatusOr<Output> DenseLayer::Call(const Scope& scope, const Output& input,
                                        const std::vector<Output>& weights,
                                        bool training) const {
  ASSIGN_OR_RETURN(Output y, CallWithoutActivation(scope, input, weights, training));
  return activations::Apply(scope, options_.activation, y);
}

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu
