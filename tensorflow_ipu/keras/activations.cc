#include "tensorflow_ipu/keras/activations.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"

namespace tensorflow_ipu {
namespace keras {
namespace activations {

absl::Status Validate(const std::string& name) {
  if (name.empty() || name == "linear" || name == "relu" || name == "softmax" ||
      name == "sigmoid" || name == "tanh") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Unknown activation function: '", name,
      "'. Please use one of \"relu\", \"softmax\", \"sigmoid\", \"tanh\", \"linear\""));
}

absl::StatusOr<Output> Apply(const Scope& scope, const std::string& name, Output x) {
  if (name.empty() || name == "linear") return x;
  if (name == "relu") return Output(ops::Relu(scope, x));
  if (name == "softmax") return Output(ops::Softmax(scope, x));
  if (name == "sigmoid") return Output(ops::Sigmoid(scope, x));
  if (name == "tanh") return Output(ops::Tanh(scope, x));
  return Validate(name);
}

}  // namespace activations
}  // namespace keras
}  // namespace tensorflow_ipu
