// The values both backends' fused-SGD-step tests use (tests/
// sgd_update_in_product_test.cc, tests/ipu/sgd_update_in_product_test.cc):
// the benchmark MLP's first layer, its batch, output gradient and initial
// weights, and the weights after one step computed in double.
#ifndef TESTS_SGD_STEP_VALUES_H_
#define TESTS_SGD_STEP_VALUES_H_

#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace sgd_step_values {

// Batch 32, 784 inputs, 256 units (6.4M multiply-adds: split over the
// threads, on oneDNN).
constexpr int kBatch = 32, kIn = 784, kOut = 256;
constexpr float kLearningRate = 0.05f;

// Values whose products round. Salts: 1 the batch x [kBatch, kIn], 2 the
// output gradient g [kBatch, kOut], 3 the initial weights [kIn, kOut].
inline Tensor Filled(int rows, int cols, int salt) {
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  for (int i = 0; i < rows * cols; ++i) {
    t.data<float>()[i] = float((i * (7 + salt)) % 29) * 0.031f - 0.4f;
  }
  return t;
}

// w0 - lr * x^T g, in double.
inline std::vector<double> Expected(const Tensor& w0, const Tensor& x, const Tensor& g) {
  std::vector<double> w(w0.data<float>(), w0.data<float>() + w0.NumElements());
  for (int r = 0; r < kIn; ++r) {
    for (int c = 0; c < kOut; ++c) {
      double acc = 0;
      for (int b = 0; b < kBatch; ++b) {
        acc += double(x.data<float>()[b * kIn + r]) * g.data<float>()[b * kOut + c];
      }
      w[r * kOut + c] -= kLearningRate * acc;
    }
  }
  return w;
}

// The weights after one step on the batch from their initial value.
inline std::vector<double> SteppedWeights() {
  return Expected(Filled(kIn, kOut, 3), Filled(kBatch, kIn, 1), Filled(kBatch, kOut, 2));
}

inline void ExpectClose(const Tensor& got, const std::vector<double>& want) {
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got.data<float>()[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << "element " << i;
  }
}

}  // namespace sgd_step_values
}  // namespace tensorflow_ipu

#endif  // TESTS_SGD_STEP_VALUES_H_
