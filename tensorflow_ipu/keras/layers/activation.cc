#include "tensorflow_ipu/keras/layers/activation.h"

#include "tensorflow_ipu/keras/activations.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

absl::Status ActivationLayer::Build(const Shape&) {
  return activations::Validate(activation_);
}

absl::StatusOr<Output> ActivationLayer::Call(const Scope& scope, const Output& input,
                                             const std::vector<Output>&, bool) const {
  return activations::Apply(scope, activation_, input);
}

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu
