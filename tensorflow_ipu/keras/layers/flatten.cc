#include "tensorflow_ipu/keras/layers/flatten.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

absl::StatusOr<Shape> FlattenLayer::ComputeOutputShape(const Shape& in) const {
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "layer \"", name(), "\": all dimensions but the batch must be known to "
          "flatten, found shape=", ShapeString(in)));
    }
  }
  ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(Shape(in.begin() + std::min<size_t>(1, in.size()),
                                                       in.end()),
                                                 absl::StrCat("layer \"", name(), "\"")));
  return Shape{in.empty() ? kUnknownDim : in[0], n};
}

absl::StatusOr<Output> FlattenLayer::Call(const Scope& scope, const Output& input,
                                          const std::vector<Output>&, bool) const {
  int64_t n = 1;
  const TensorShape& s = input.shape();
  for (int i = 1; i < s.dims(); ++i) n *= s.dim_size(i);
  return Output(ops::Reshape(scope, input, {-1, static_cast<int32_t>(n)}));
}

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu
