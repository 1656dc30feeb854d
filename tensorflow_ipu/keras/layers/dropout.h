// keras::layers::Dropout: while training, each element is zeroed with
// probability `rate` and the others scaled by 1 / (1 - rate); otherwise the
// identity. The mask comes from RandomUniform, which draws fresh numbers
// at every step on the CPU and on the IPU (every iteration of an
// on-device loop).
//
//   x = keras::layers::Dropout(0.5)(x);
#ifndef TENSORFLOW_IPU_KERAS_LAYERS_DROPOUT_H_
#define TENSORFLOW_IPU_KERAS_LAYERS_DROPOUT_H_

#include <cstdint>
#include <string>

#include "tensorflow_ipu/keras/layer.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

struct DropoutOptions {
  int64_t seed = 0;  // 0: from keras::utils::set_random_seed, else fresh
  std::string name;
};

class DropoutLayer : public Layer {
 public:
  DropoutLayer(double rate, DropoutOptions options);
  absl::StatusOr<Output> Call(const Scope& scope, const Output& input,
                              const std::vector<Output>& weights,
                              bool training) const override;
  absl::StatusOr<Shape> ComputeOutputShape(const Shape& input_shape) const override {
    return input_shape;
  }

 protected:
  absl::Status Build(const Shape& input_shape) override;

 private:
  double rate_;
  DropoutOptions options_;
};

class Dropout : public LayerHandle<DropoutLayer> {
 public:
  explicit Dropout(double rate, DropoutOptions options = {})
      : LayerHandle(std::make_shared<DropoutLayer>(rate, std::move(options))) {}
};

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_LAYERS_DROPOUT_H_
