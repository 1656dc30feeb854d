#include "tensorflow_ipu/keras/keras_shape.h"

#include "absl/strings/str_cat.h"


namespace tensorflow_ipu {
namespace keras {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

absl::StatusOr<int64_t> CheckedNumElements(const Shape& shape, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d == kUnknownDim) continue;
    if (d < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": every dimension must be positive, got ", ShapeString(shape)));
    }
    if (d > kMaxElements / n) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": shape ", ShapeString(shape), " holds more than 2^31 elements; use "
          "smaller layers or inputs"));
    }
    n *= d;
  }
  return n;
}

}  // namespace keras
}  // namespace tensorflow_ipu
