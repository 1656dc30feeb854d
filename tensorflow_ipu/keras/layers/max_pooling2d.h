// keras::layers::MaxPooling2D: the maximum over windows of NHWC inputs;
// strides default to the pool size, as Keras's.
//
//   x = keras::layers::MaxPooling2D({2, 2})(x);
#ifndef TENSORFLOW_IPU_KERAS_LAYERS_MAX_POOLING2D_H_
#define TENSORFLOW_IPU_KERAS_LAYERS_MAX_POOLING2D_H_

#include <array>
#include <optional>
#include <string>

#include "tensorflow_ipu/keras/layer.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

struct MaxPooling2DOptions {
  std::optional<std::array<int64_t, 2>> strides;  // nullopt: pool_size
  std::string padding = "valid";
  std::string name;
};

class MaxPooling2DLayer : public Layer {
 public:
  MaxPooling2DLayer(std::array<int64_t, 2> pool_size, MaxPooling2DOptions options);
  absl::StatusOr<Output> Call(const Scope& scope, const Output& input,
                              const std::vector<Output>& weights,
                              bool training) const override;
  absl::StatusOr<Shape> ComputeOutputShape(const Shape& input_shape) const override;

 protected:
  absl::Status Build(const Shape& input_shape) override;

 private:
  std::array<int64_t, 2> strides() const;
  std::array<int64_t, 2> pool_size_;
  MaxPooling2DOptions options_;
};

class MaxPooling2D : public LayerHandle<MaxPooling2DLayer> {
 public:
  explicit MaxPooling2D(std::array<int64_t, 2> pool_size = {2, 2},
                        MaxPooling2DOptions options = {})
      : LayerHandle(std::make_shared<MaxPooling2DLayer>(pool_size, std::move(options))) {}
};

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_LAYERS_MAX_POOLING2D_H_
