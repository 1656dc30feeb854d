// Shapes of the Keras layer: a dimension of -1 is unknown (Keras's None,
// the batch dimension of a model's inputs).
#ifndef TENSORFLOW_IPU_KERAS_KERAS_SHAPE_H_
#define TENSORFLOW_IPU_KERAS_KERAS_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflow_ipu/keras/utils/print_summary.h"

namespace tensorflow_ipu {
namespace keras {

using Shape = std::vector<int64_t>;
constexpr int64_t kUnknownDim = -1;

// As Python prints a Keras shape: "(None, 26, 26, 32)", "(None, 10)".
inline std::string ShapeString(const Shape& shape) { return utils::FormatShape(shape); }

// Elements of a shape whose dimensions are all known.
int64_t NumElements(const Shape& shape);

}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_KERAS_SHAPE_H_
