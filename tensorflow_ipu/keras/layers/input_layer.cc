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
  for (int64_t d : shape) {
    if (d < 1) {
      return KerasTensor::Error(absl::InvalidArgumentError(absl::StrCat(
          "Input \"", name(), "\": every dimension of `shape` (without the batch) must "
          "be known and positive, got ", ShapeString(shape))));
    }
  }
  absl::Status size =
      CheckedNumElements(shape, absl::StrCat("Input \"", name(), "\" (without the batch)"))
          .status();
  if (!size.ok()) return KerasTensor::Error(size);
  Shape full{kUnknownDim};
  full.insert(full.end(), shape.begin(), shape.end());
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
