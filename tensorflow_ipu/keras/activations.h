// Keras's activations by name: "relu", "softmax", "sigmoid", "tanh",
// "linear" (or "": none).
#ifndef TENSORFLOW_IPU_KERAS_ACTIVATIONS_H_
#define TENSORFLOW_IPU_KERAS_ACTIVATIONS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"

namespace tensorflow_ipu {
namespace keras {
namespace activations {

// InvalidArgument naming the known activations for any other name.
absl::Status Validate(const std::string& name);
// Applies the activation (softmax over the last dimension).
absl::StatusOr<Output> Apply(const Scope& scope, const std::string& name, Output x);

}  // namespace activations
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_ACTIVATIONS_H_
