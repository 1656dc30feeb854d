// Small, deterministic image classification data for the Keras tests:
// 8x8 single-channel images of 4 classes, the class being the quadrant
// that is bright (plus noise), so a small CNN learns it in a few epochs.
#ifndef TESTS_KERAS_KERAS_TEST_DATA_H_
#define TESTS_KERAS_KERAS_TEST_DATA_H_

#include <cmath>
#include <cstdint>
#include <vector>

#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace testing {

struct QuadrantData {
  Tensor x;          // [n, 8, 8, 1] float
  Tensor y_onehot;   // [n, 4] float
  Tensor y_sparse;   // [n] int32
};

inline QuadrantData MakeQuadrants(int64_t n, uint32_t seed = 1) {
  std::vector<float> x(n * 64), onehot(n * 4, 0.f);
  std::vector<int32_t> sparse(n);
  uint32_t state = seed * 2654435761u + 1;
  auto next = [&]() {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
  };
  for (int64_t i = 0; i < n; ++i) {
    const int c = static_cast<int>(i % 4);
    sparse[i] = c;
    onehot[i * 4 + c] = 1.f;
    for (int r = 0; r < 8; ++r) {
      for (int k = 0; k < 8; ++k) {
        const bool bright = (r / 4) == c / 2 && (k / 4) == c % 2;
        x[i * 64 + r * 8 + k] = (bright ? 0.8f : 0.1f) + 0.3f * (next() - 0.5f);
      }
    }
  }
  return {Tensor::FromVector<float>(x, TensorShape({n, 8, 8, 1})),
          Tensor::FromVector<float>(onehot, TensorShape({n, 4})),
          Tensor::FromVector<int32_t>(sparse, TensorShape({n}))};
}

}  // namespace testing
}  // namespace tensorflow_ipu

#endif  // TESTS_KERAS_KERAS_TEST_DATA_H_
