#include "tensorflow_ipu/keras/layers/activation.h"

#include "tensorflow_ipu/keras/activations.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

absl::Status ActivationLayer::Build(const Shape&) {
  return activations::Validate(activation());
}

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu
