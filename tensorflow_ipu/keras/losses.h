// Keras's losses and metrics by name, as the ops of one batch.
//
// Losses: "categorical_crossentropy" (one-hot labels), 
// "sparse_categorical_crossentropy" (class indices), "mse" (or
// "mean_squared_error"); each the mean over the batch (Keras's
// SUM_OVER_BATCH_SIZE). As Keras does, a cross-entropy whose predictions
// come out of a softmax is computed from the values before the softmax.
//
// Metrics: "accuracy" (resolved from the loss, as Keras: categorical,
// sparse categorical or binary), "categorical_accuracy",
// "sparse_categorical_accuracy", "binary_accuracy"; each the fraction of
// the batch that is right. The predicted class is the first index of the
// row's maximum, as tf.argmax picks it.
#ifndef TENSORFLOW_IPU_KERAS_LOSSES_H_
#define TENSORFLOW_IPU_KERAS_LOSSES_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"

namespace tensorflow_ipu {
namespace keras {
namespace losses {

// InvalidArgument naming the known losses.
absl::Status Validate(const std::string& name);
// True when the loss can start from the logits of a softmax output.
bool TakesLogits(const std::string& name);

// The batch's mean loss. `logits` (the output before its softmax) is used
// when given and TakesLogits(name).
absl::StatusOr<Output> Compute(const Scope& scope, const std::string& name, Output y_true,
                               Output y_pred, std::optional<Output> logits);

}  // namespace losses

namespace metrics {

// The metric's canonical name, with "accuracy" resolved against the loss;
// InvalidArgument for an unknown metric.
absl::StatusOr<std::string> Resolve(const std::string& metric, const std::string& loss);
// The fraction of the batch the metric counts right, a float scalar.
absl::StatusOr<Output> Compute(const Scope& scope, const std::string& resolved,
                               Output y_true, Output y_pred);

}  // namespace metrics
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_LOSSES_H_
