// keras::utils::to_categorical: class indices to one-hot rows, as Keras's.
//
//   Tensor y = keras::utils::to_categorical(labels, 10).value();  // [n, 10] float
#ifndef TENSORFLOW_IPU_KERAS_UTILS_NP_UTILS_H_
#define TENSORFLOW_IPU_KERAS_UTILS_NP_UTILS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace keras {
namespace utils {

// `y`: int32 or int64 class indices of any shape; the result has one more
// dimension of `num_classes`. InvalidArgument for an index outside
// [0, num_classes), naming it and its position.
absl::StatusOr<Tensor> to_categorical(const Tensor& y, int64_t num_classes);

}  // namespace utils
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_UTILS_NP_UTILS_H_
