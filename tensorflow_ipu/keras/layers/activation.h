// keras::layers::Activation: applies a named activation
// (keras/activations.h).
#ifndef TENSORFLOW_IPU_KERAS_LAYERS_ACTIVATION_H_
#define TENSORFLOW_IPU_KERAS_LAYERS_ACTIVATION_H_

#include <string>

#include "tensorflow_ipu/keras/layer.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

class ActivationLayer : public ActivatedLayer {
 public:
  ActivationLayer(std::string activation, const std::string& name)
      : ActivatedLayer("Activation", name, std::move(activation)) {}
  absl::StatusOr<Output> CallWithoutActivation(const Scope&, const Output& input,
                                               const std::vector<Output>&,
                                               bool) const override {
    return input;
  }
  absl::StatusOr<Shape> ComputeOutputShape(const Shape& input_shape) const override {
    return input_shape;
  }

 protected:
  absl::Status Build(const Shape& input_shape) override;
};

class Activation : public LayerHandle<ActivationLayer> {
 public:
  explicit Activation(std::string activation, const std::string& name = "")
      : LayerHandle(std::make_shared<ActivationLayer>(std::move(activation), name)) {}
};

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_LAYERS_ACTIVATION_H_
