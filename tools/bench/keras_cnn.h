// The CNN of the seed's Keras tutorial (issue 16's benchmark), as plain
// numbers every contestant can read: its weights in Keras's layouts and
// the floating-point work of one training step.
//
//   Input 28x28x1 -> Conv2D(32, 3x3, relu) -> MaxPooling2D(2x2)
//     -> Conv2D(64, 3x3, relu) -> MaxPooling2D(2x2) -> Flatten
//     -> Dropout(0.5) -> Dense(10, softmax)                 34,826 weights
//
//   CnnWeights w = ...;                     // e.g. a Keras model's get_weights
//   contest.SetWork(CnnTrainingFlops(64));
#ifndef TOOLS_BENCH_KERAS_CNN_H_
#define TOOLS_BENCH_KERAS_CNN_H_

#include <cstdint>
#include <vector>

namespace tfipu_bench {

// In Keras's get_weights order and layouts.
struct CnnWeights {
  std::vector<float> conv1_kernel;  // [3, 3, 1, 32] (HWIO)
  std::vector<float> conv1_bias;    // [32]
  std::vector<float> conv2_kernel;  // [3, 3, 32, 64]
  std::vector<float> conv2_bias;    // [64]
  // [1600, 10]; row (h * 5 + w) * 64 + c: Keras flattens the last pooling's
  // NHWC [5, 5, 64] output.
  std::vector<float> dense_kernel;
  std::vector<float> dense_bias;    // [10]
};

// Each tensor's element count, in the order above.
std::vector<int64_t> CnnWeightSizes();
// All zeros, of the right sizes.
CnnWeights ZeroCnnWeights();
// 34,826 for the right sizes.
int64_t CnnParamCount(const CnnWeights& w);

// The multiply-adds of the convolutions and the dense layer, times 2, of
// one training step on `batch` images: the forward pass, every layer's
// weight gradient (as many as its forward pass), and the input gradient of
// every layer but the first (the images need none). Biases, activations,
// pooling, dropout and the loss (under 1% of it) are not counted.
double CnnTrainingFlops(int batch);
// The forward pass alone.
double CnnInferenceFlops(int batch);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_KERAS_CNN_H_
