// keras::Input and keras::layers::InputLayer: where a model's data enters.
//
//   keras::KerasTensor x = keras::Input({28, 28, 1});   // (None, 28, 28, 1)
//
// `shape` excludes the batch dimension, as in Keras.
#ifndef TENSORFLOW_IPU_KERAS_LAYERS_INPUT_LAYER_H_
#define TENSORFLOW_IPU_KERAS_LAYERS_INPUT_LAYER_H_

#include <string>

#include "tensorflow_ipu/keras/layer.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

class InputLayerImpl : public Layer {
 public:
  InputLayerImpl(const std::string& name) : Layer("InputLayer", name) {}
  absl::StatusOr<Output> Call(const Scope&, const Output& input, const std::vector<Output>&,
                              bool) const override {
    return input;
  }
  absl::StatusOr<Shape> ComputeOutputShape(const Shape& input_shape) const override {
    return input_shape;
  }
  // The layer's one node: a tensor of `shape` with an unknown batch.
  KerasTensor MakeInput(const Shape& shape, DataType dtype);
};

// For keras::Sequential, whose first layer gives the input shape.
class InputLayer : public LayerHandle<InputLayerImpl> {
 public:
  explicit InputLayer(const Shape& shape, DataType dtype = DT_FLOAT,
                      const std::string& name = "");
  const KerasTensor& output() const { return output_; }

 private:
  KerasTensor output_;
};

}  // namespace layers

KerasTensor Input(const Shape& shape, DataType dtype = DT_FLOAT, const std::string& name = "");

}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_LAYERS_INPUT_LAYER_H_
