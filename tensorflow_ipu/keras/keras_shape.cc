#include "tensorflow_ipu/keras/keras_shape.h"


namespace tensorflow_ipu {
namespace keras {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace keras
}  // namespace tensorflow_ipu
