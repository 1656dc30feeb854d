#include "tensorflow_ipu/keras/layer.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/keras/activations.h"
#include "tensorflow_ipu/keras/backend.h"
#include "tensorflow_ipu/keras/initializers.h"
#include "tensorflow_ipu/keras/pipeline_stage.h"

namespace tensorflow_ipu {
namespace keras {
std::string UniqueLayerName(const std::string& class_name) {
  return backend::unique_object_name(backend::to_snake_case(class_name));
}

KerasTensor KerasTensor::Error(absl::Status status) {
  KerasTensor t;
  t.status_ = std::move(status);
  return t;
}

Layer::Layer(std::string class_name, const std::string& name)
    : class_name_(std::move(class_name)),
      name_(name.empty() ? UniqueLayerName(class_name_) : name) {}

int64_t Layer::count_params() const {
  int64_t n = 0;
  for (const WeightSpec& w : weights_) n += NumElements(w.shape);
  return n;
}

void Layer::AddWeight(std::string name, Shape shape, Initializer initializer) {
  weights_.push_back({std::move(name), std::move(shape), std::move(initializer), true});
}

absl::Status Layer::EnsureBuilt(const Shape& input_shape) {
  if (built_) {
    // Weights were sized for the first input; a later call must agree on
    // everything but the batch.
    if (input_shape.size() != built_input_shape_.size() ||
        !std::equal(input_shape.begin() + 1, input_shape.end(),
                    built_input_shape_.begin() + 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input 0 of layer \"", name_, "\" is incompatible with the layer: expected shape=",
          ShapeString(built_input_shape_), ", found shape=", ShapeString(input_shape)));
    }
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(Build(input_shape));
  for (const WeightSpec& w : weights_) {
    RETURN_IF_ERROR(
        CheckedNumElements(w.shape, absl::StrCat("the ", w.name, " of layer \"", name_, "\""))
            .status());
  }
  built_ = true;
  built_input_shape_ = input_shape;
  return absl::OkStatus();
}

KerasTensor Layer::AddSourceNode(const Shape& shape, DataType dtype) {
  nodes_.push_back({{}, shape, std::nullopt});
  source_dtype_ = dtype;
  built_ = true;
  built_input_shape_ = shape;
  KerasTensor t;
  t.layer_ = shared_from_this();
  t.node_index_ = static_cast<int>(nodes_.size()) - 1;
  t.shape_ = shape;
  t.dtype_ = dtype;
  return t;
}

KerasTensor Layer::operator()(const KerasTensor& input) {
  if (!input.ok()) return input;
  if (!input.layer()) {
    return KerasTensor::Error(absl::InvalidArgumentError(absl::StrCat(
        "layer \"", name_, "\" was called on an empty KerasTensor; call it on "
        "keras::Input(...) or on another layer's output")));
  }
  absl::StatusOr<std::optional<int>> stage = ipu::keras::CurrentPipelineStage();
  if (!stage.ok()) return KerasTensor::Error(stage.status());
  absl::Status s = EnsureBuilt(input.shape());
  if (!s.ok()) return KerasTensor::Error(s);
  absl::StatusOr<Shape> out = ComputeOutputShape(input.shape());
  if (!out.ok()) return KerasTensor::Error(out.status());
  absl::Status size = CheckedNumElements(
      *out, absl::StrCat("the output of layer \"", name_, "\"")).status();
  if (!size.ok()) return KerasTensor::Error(size);
  nodes_.push_back({{input}, *out, *stage});
  KerasTensor t;
  t.layer_ = shared_from_this();
  t.node_index_ = static_cast<int>(nodes_.size()) - 1;
  t.shape_ = *out;
  t.dtype_ = input.dtype();
  return t;
}

KerasTensor Layer::OutputOf(int node_index) {
  if (node_index < 0 || node_index >= static_cast<int>(nodes_.size())) {
    return KerasTensor::Error(absl::InvalidArgumentError(absl::StrCat(
        "layer \"", name_, "\" has no call ", node_index)));
  }
  KerasTensor t;
  t.layer_ = shared_from_this();
  t.node_index_ = node_index;
  t.shape_ = nodes_[node_index].output_shape;
  t.dtype_ = nodes_[node_index].inputs.empty() ? source_dtype_
                                               : nodes_[node_index].inputs[0].dtype();
  return t;
}

absl::StatusOr<Output> ActivatedLayer::Call(const Scope& scope, const Output& input,
                                             const std::vector<Output>& weights,
                                             bool training) const {
  ASSIGN_OR_RETURN(Output y, CallWithoutActivation(scope, input, weights, training));
  return activations::Apply(scope, activation_, y);
}

absl::Status ActivatedLayer::AddKernelAndBias(const Shape& kernel_shape, bool use_bias,
                                              const std::string& kernel_initializer,
                                              const std::string& bias_initializer) {
  RETURN_IF_ERROR(activations::Validate(activation_));
  ASSIGN_OR_RETURN(Initializer kernel,
                   initializers::Get(kernel_initializer, name(), "kernel"));
  AddWeight("kernel", kernel_shape, kernel);
  if (use_bias) {
    ASSIGN_OR_RETURN(Initializer bias, initializers::Get(bias_initializer, name(), "bias"));
    AddWeight("bias", {kernel_shape.back()}, bias);
  }
  return absl::OkStatus();
}

Output ActivatedLayer::MaybeAddBias(const Scope& scope, Output y,
                                    const std::vector<Output>& weights) const {
  return weights.size() > 1 ? Output(ops::BiasAdd(scope, y, weights[1])) : y;
}

void Layer::set_pipeline_stage(int node_index, std::optional<int> stage) {
  if (node_index >= 0 && node_index < static_cast<int>(nodes_.size())) {
    nodes_[node_index].pipeline_stage = stage;
  }
}

}  // namespace keras
}  // namespace tensorflow_ipu
