// keras::layers::Dense: activation(inputs . kernel + bias) on [batch, n].
//
//   x = keras::layers::Dense(10, {.activation = "softmax"})(x);
#ifndef TENSORFLOW_IPU_KERAS_LAYERS_DENSE_H_
#define TENSORFLOW_IPU_KERAS_LAYERS_DENSE_H_

#include <string>

#include "tensorflow_ipu/keras/layer.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

struct DenseOptions {
  std::string activation;  // "" = linear
  bool use_bias = true;
  std::string kernel_initializer = "glorot_uniform";
  std::string bias_initializer = "zeros";
  std::string name;
};

class DenseLayer : public ActivatedLayer {
 public:
  DenseLayer(int64_t units, DenseOptions options);
  absl::StatusOr<Output> CallWithoutActivation(const Scope& scope, const Output& input,
                                               const std::vector<Output>& weights,
                                               bool training) const override;
  absl::StatusOr<Shape> ComputeOutputShape(const Shape& input_shape) const override;

 protected:
  absl::Status Build(const Shape& input_shape) override;

 private:
  int64_t units_;
  DenseOptions options_;
};

class Dense : public LayerHandle<DenseLayer> {
 public:
  explicit Dense(int64_t units, DenseOptions options = {})
      : LayerHandle(std::make_shared<DenseLayer>(units, std::move(options))) {}
};

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_LAYERS_DENSE_H_
