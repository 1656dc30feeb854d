// keras::layers::Conv2D: a 2-D convolution over NHWC inputs
// (data_format "channels_last"), kernel [kh, kw, in, filters].
//
//   x = keras::layers::Conv2D(32, {3, 3}, {.activation = "relu"})(x);
#ifndef TENSORFLOW_IPU_KERAS_LAYERS_CONV2D_H_
#define TENSORFLOW_IPU_KERAS_LAYERS_CONV2D_H_

#include <array>
#include <string>

#include "tensorflow_ipu/keras/layer.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

struct Conv2DOptions {
  std::array<int64_t, 2> strides = {1, 1};
  std::string padding = "valid";  // or "same"
  std::string activation;
  bool use_bias = true;
  std::string kernel_initializer = "glorot_uniform";
  std::string bias_initializer = "zeros";
  std::string name;
};

class Conv2DLayer : public ActivatedLayer {
 public:
  Conv2DLayer(int64_t filters, std::array<int64_t, 2> kernel_size, Conv2DOptions options);
  absl::StatusOr<Output> CallWithoutActivation(const Scope& scope, const Output& input,
                                               const std::vector<Output>& weights,
                                               bool training) const override;
  absl::StatusOr<Shape> ComputeOutputShape(const Shape& input_shape) const override;

 protected:
  absl::Status Build(const Shape& input_shape) override;

 private:
  int64_t filters_;
  std::array<int64_t, 2> kernel_size_;
  Conv2DOptions options_;
};

class Conv2D : public LayerHandle<Conv2DLayer> {
 public:
  Conv2D(int64_t filters, std::array<int64_t, 2> kernel_size, Conv2DOptions options = {})
      : LayerHandle(std::make_shared<Conv2DLayer>(filters, kernel_size, std::move(options))) {}
};

// The spatial output size of a window of `window` with `stride` and Keras's
// padding ("valid" or "same") over `in`; InvalidArgument when nothing fits.
absl::StatusOr<int64_t> WindowOutputSize(const std::string& layer, int64_t in,
                                         int64_t window, int64_t stride,
                                         const std::string& padding);
// "valid" -> "VALID", "same" -> "SAME"; InvalidArgument otherwise.
absl::StatusOr<std::string> PaddingAttr(const std::string& layer, const std::string& padding);

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_LAYERS_CONV2D_H_
