#include "tensorflow_ipu/train/nan_tensor_hook.h"

#include <cmath>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/logging.h"

namespace tensorflow_ipu {
namespace train {
namespace {

template <typename T>
bool AnyNan(const Tensor& t) {
  const T* values = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (std::isnan(static_cast<double>(values[i]))) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::shared_ptr<NanTensorHook>> NanTensorHook::Create(Output loss_tensor,
                                                                     bool fail_on_nan_loss) {
  if (!loss_tensor.valid()) {
    return absl::InvalidArgumentError(
        "NanTensorHook was given an invalid loss tensor (a default Output, or "
        "one from a failed op)");
  }
  const DataType dtype = loss_tensor.type();
  if (dtype != DT_FLOAT && dtype != DT_DOUBLE && dtype != DT_HALF) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NanTensorHook's loss tensor '", loss_tensor.name(), "' is ", DataTypeString(dtype),
        "; only floating-point (float, double, half) values can be NaN"));
  }
  return std::shared_ptr<NanTensorHook>(new NanTensorHook(loss_tensor, fail_on_nan_loss));
}

absl::StatusOr<SessionRunArgs> NanTensorHook::before_run(const SessionRunContext&) {
  return SessionRunArgs({loss_});
}

absl::Status NanTensorHook::after_run(const SessionRunContext& run_context,
                                      const SessionRunValues& run_values) {
  const Tensor& loss = run_values.results.at(0);
  bool nan = false;
  switch (loss.dtype()) {
    case DT_FLOAT: nan = AnyNan<float>(loss); break;
    case DT_DOUBLE: nan = AnyNan<double>(loss); break;
    case DT_HALF: nan = AnyNan<half>(loss); break;
    default: break;  // Create allows no other type
  }
  if (!nan) return absl::OkStatus();
  const char kFailureMessage[] = "Model diverged with loss = NaN.";
  if (!fail_on_nan_loss_) {
    TFIPU_LOG(WARNING) << kFailureMessage;
    run_context.request_stop();
    return absl::OkStatus();
  }
  TFIPU_LOG(ERROR) << kFailureMessage;
  return absl::InvalidArgumentError(absl::StrCat(
      "NaN loss during training. The loss tensor '", loss_.name(),
      "' is NaN: lower the learning rate or check the inputs (or make the hook with "
      "fail_on_nan_loss = false to stop without an error)"));
}

}  // namespace train
}  // namespace tensorflow_ipu
