#include "tensorflow_ipu/keras/layers/input_layer.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/keras/backend.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {
namespace {

// Keras numbers inputs from 1 ("input_1"), unlike other layers.
std::string InputName(const std::string& name) {
  return name.empty() ? backend::unique_object_name("input", /*zero_based=*/false) : name;
}

}  // namespace

KerasTensor InputLayerImpl::MakeInput(const Shape& shape, DataType dtype) {
  Shape full{kUnknownDim};
  for (int64_t d : shape) {
    if (d < 1) {
      return KerasTensor::Error(absl::InvalidArgumentError(absl::StrCat(
          "Input \"", name(), "\": every dimension of `shape` (without the batch) must "
          "be positive, got ", ShapeString(shape))));
    }
    full.push_back(d);
  }
  return AddSourceNode(full, dtype);
}

InputLayer::InputLayer(const Shape& shape, DataType dtype, const std::string& name)
    : LayerHandle(std::make_shared<InputLayerImpl>(InputName(name))) {
  output_ = get()->MakeInput(shape, dtype);
}

}  // namespace layers

KerasTensor Input(const Shape& shape, DataType dtype, const std::string& name) {
  return layers::InputLayer(shape, dtype, name).output();
}

}  // namespace keras
}  // namespace tensorflow_ipu
