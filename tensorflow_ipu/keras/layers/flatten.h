// keras::layers::Flatten: [batch, d1, d2, ...] -> [batch, d1 * d2 * ...].
#ifndef TENSORFLOW_IPU_KERAS_LAYERS_FLATTEN_H_
#define TENSORFLOW_IPU_KERAS_LAYERS_FLATTEN_H_

#include <string>

#include "tensorflow_ipu/keras/layer.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

class FlattenLayer : public Layer {
 public:
  explicit FlattenLayer(const std::string& name) : Layer("Flatten", name) {}
  absl::StatusOr<Output> Call(const Scope& scope, const Output& input,
                              const std::vector<Output>& weights,
                              bool training) const override;
  absl::StatusOr<Shape> ComputeOutputShape(const Shape& input_shape) const override;
};

class Flatten : public LayerHandle<FlattenLayer> {
 public:
  explicit Flatten(const std::string& name = "")
      : LayerHandle(std::make_shared<FlattenLayer>(name)) {}
};

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_LAYERS_FLATTEN_H_
