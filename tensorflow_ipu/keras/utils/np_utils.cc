#include "tensorflow_ipu/keras/utils/np_utils.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace keras {
namespace utils {

absl::StatusOr<Tensor> to_categorical(const Tensor& y, int64_t num_classes) {
  if (y.dtype() != DT_INT32 && y.dtype() != DT_INT64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "to_categorical takes int32 or int64 class indices, not ", DataTypeString(y.dtype())));
  }
  if (num_classes < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_classes must be positive, got ", num_classes));
  }
  const int64_t n = y.NumElements();
  // 2^31 floats at most (8 GiB), checked before the product can overflow.
  constexpr int64_t kMaxElements = int64_t{1} << 31;
  if (n > 0 && num_classes > kMaxElements / n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "to_categorical: ", n, " labels of ", num_classes,
        " classes make more than 2^31 values; num_classes is too large"));
  }
  std::vector<float> out(n * num_classes, 0.f);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = y.dtype() == DT_INT32 ? y.data<int32_t>()[i] : y.data<int64_t>()[i];
    if (c < 0 || c >= num_classes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "to_categorical: class index ", c, " at position ", i, " is outside [0, ",
          num_classes, ")"));
    }
    out[i * num_classes + c] = 1.f;
  }
  std::vector<int64_t> dims(y.shape().dim_sizes().begin(), y.shape().dim_sizes().end());
  dims.push_back(num_classes);
  return Tensor::FromValues<float>(out, TensorShape(dims));
}

}  // namespace utils
}  // namespace keras
}  // namespace tensorflow_ipu
