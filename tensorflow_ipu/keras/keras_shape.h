// Shapes of the Keras layer: a dimension of -1 is unknown (Keras's None,
// the batch dimension of a model's inputs).
#ifndef TENSORFLOW_IPU_KERAS_KERAS_SHAPE_H_
#define TENSORFLOW_IPU_KERAS_KERAS_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "tensorflow_ipu/keras/utils/print_summary.h"

namespace tensorflow_ipu {
namespace keras {

using Shape = std::vector<int64_t>;
constexpr int64_t kUnknownDim = -1;

// As Python prints a Keras shape: "(None, 26, 26, 32)", "(None, 10)".
inline std::string ShapeString(const Shape& shape) { return utils::FormatShape(shape); }

// The most elements a layer's weight or a sample may have (2^31: 8 GiB of
// floats), so that sizes never overflow and nothing is allocated that the
// host cannot hold.
constexpr int64_t kMaxElements = int64_t{1} << 31;

// Elements of a shape whose dimensions are all known (at most
// kMaxElements: CheckedNumElements has checked it).
int64_t NumElements(const Shape& shape);
// The elements of `shape` (unknown dimensions skipped), or InvalidArgument
// naming `what` when a dimension is below 1 or the count exceeds
// kMaxElements (checked before it could overflow).
absl::StatusOr<int64_t> CheckedNumElements(const Shape& shape, const std::string& what);

}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_KERAS_SHAPE_H_
