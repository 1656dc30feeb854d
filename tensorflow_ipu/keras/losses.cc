#include "tensorflow_ipu/keras/losses.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace keras {
namespace {

// Index of the first maximum of each row of [batch, classes], as float,
// from ops that lower to the IPU (Max, Equal, SelectV2, Min).
Output FirstArgMax(const Scope& s, Output x, int64_t classes) {
  std::vector<float> index(classes);
  for (int64_t i = 0; i < classes; ++i) index[i] = static_cast<float>(i);
  Output row_max = ops::Max(s, x, {1}, ops::Max::KeepDims(true));
  Output candidates = ops::SelectV2(
      s, ops::Equal(s, x, row_max),
      Tensor::FromVector<float>(index, TensorShape({classes})),
      static_cast<float>(classes));
  return ops::Min(s, candidates, {1});
}

int64_t Classes(const Output& y_pred) {
  const TensorShape& s = y_pred.shape();
  return s.dims() >= 2 ? s.dim_size(s.dims() - 1) : -1;
}

}  // namespace

namespace losses {

absl::Status Validate(const std::string& name) {
  if (name == "categorical_crossentropy" || name == "sparse_categorical_crossentropy" ||
      name == "mse" || name == "mean_squared_error") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Unknown loss function: '", name, "'. Please use one of "
      "\"categorical_crossentropy\", \"sparse_categorical_crossentropy\", \"mse\""));
}

bool TakesLogits(const std::string& name) {
  return name == "categorical_crossentropy" || name == "sparse_categorical_crossentropy";
}

absl::StatusOr<Output> Compute(const Scope& s, const std::string& name, Output y_true,
                               Output y_pred, std::optional<Output> logits) {
  RETURN_IF_ERROR(Validate(name));
  if (name == "mse" || name == "mean_squared_error") {
    Output err = ops::Square(s, ops::Sub(s, y_pred, ops::Cast(s, y_true, y_pred.type())));
    return Output(ops::Mean(s, err, {0, 1}));
  }
  // Keras clips probabilities to [1e-7, 1 - 1e-7] when they are not
  // logits; the logits of a softmax output need no clipping.
  Output scores = logits ? *logits : ops::Log(s, ops::Maximum(s, ops::Minimum(s, y_pred, 1.f - 1e-7f), 1e-7f));
  if (name == "categorical_crossentropy") {
    if (y_true.shape().dims() != 2 || Classes(y_pred) != y_true.shape().dim_size(1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "categorical_crossentropy needs one-hot labels of shape [batch, ",
          Classes(y_pred), "], got ", y_true.shape().DebugString(),
          "; for class indices use sparse_categorical_crossentropy"));
    }
    Output labels = ops::Cast(s, y_true, scores.type());
    if (logits) {
      ops::SoftmaxCrossEntropyWithLogits xent(s, scores, labels);
      return Output(ops::Mean(s, xent.loss, {0}));
    }
    Output per_row = ops::Neg(s, ops::Sum(s, ops::Mul(s, labels, scores), {1}));
    return Output(ops::Mean(s, per_row, {0}));
  }
  // Sparse: labels [batch] or [batch, 1] of class indices.
  Output labels = ops::Cast(s, ops::Reshape(s, y_true, {-1}), DT_INT32);
  if (logits) {
    ops::SparseSoftmaxCrossEntropyWithLogits xent(s, scores, labels);
    return Output(ops::Mean(s, xent.loss, {0}));
  }
  Output one_hot = ops::OneHot(s, labels, static_cast<int32_t>(Classes(y_pred)), 1.f, 0.f);
  Output per_row = ops::Neg(s, ops::Sum(s, ops::Mul(s, one_hot, scores), {1}));
  return Output(ops::Mean(s, per_row, {0}));
}

}  // namespace losses

namespace metrics {

absl::StatusOr<std::string> Resolve(const std::string& metric, const std::string& loss) {
  if (metric == "accuracy" || metric == "acc") {
    if (loss == "categorical_crossentropy") return std::string("categorical_accuracy");
    if (loss == "sparse_categorical_crossentropy") {
      return std::string("sparse_categorical_accuracy");
    }
    return std::string("binary_accuracy");
  }
  if (metric == "categorical_accuracy" || metric == "sparse_categorical_accuracy" ||
      metric == "binary_accuracy") {
    return metric;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Unknown metric function: '", metric, "'. Please use one of \"accuracy\", "
      "\"categorical_accuracy\", \"sparse_categorical_accuracy\", \"binary_accuracy\""));
}

absl::StatusOr<Output> Compute(const Scope& s, const std::string& resolved, Output y_true,
                               Output y_pred) {
  Output right;
  if (resolved == "binary_accuracy") {
    Output predicted = ops::Cast(s, ops::Greater(s, y_pred, 0.5f), DT_FLOAT);
    right = ops::Cast(s, ops::Equal(s, predicted, ops::Cast(s, y_true, DT_FLOAT)), DT_FLOAT);
    return Output(ops::Mean(s, right, {0, 1}));
  }
  const int64_t classes = Classes(y_pred);
  Output predicted = FirstArgMax(s, y_pred, classes);
  Output expected = resolved == "categorical_accuracy"
                        ? FirstArgMax(s, ops::Cast(s, y_true, DT_FLOAT), classes)
                        : ops::Cast(s, ops::Reshape(s, y_true, {-1}), DT_FLOAT);
  right = ops::Cast(s, ops::Equal(s, predicted, expected), DT_FLOAT);
  return Output(ops::Mean(s, right, {0}));
}

}  // namespace metrics
}  // namespace keras
}  // namespace tensorflow_ipu
