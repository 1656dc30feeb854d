#include "tools/bench/keras_cnn.h"

namespace tfipu_bench {
namespace {

// Multiply-adds per image of each layer's forward pass.
constexpr double kConv1Macs = 26.0 * 26 * 32 * (3 * 3 * 1);   // 194,688
constexpr double kConv2Macs = 11.0 * 11 * 64 * (3 * 3 * 32);  // 2,230,272
constexpr double kDenseMacs = 1600.0 * 10;                     // 16,000

}  // namespace

std::vector<int64_t> CnnWeightSizes() {
  return {3 * 3 * 1 * 32, 32, 3 * 3 * 32 * 64, 64, 1600 * 10, 10};
}

CnnWeights ZeroCnnWeights() {
  const std::vector<int64_t> n = CnnWeightSizes();
  CnnWeights w;
  w.conv1_kernel.assign(n[0], 0);
  w.conv1_bias.assign(n[1], 0);
  w.conv2_kernel.assign(n[2], 0);
  w.conv2_bias.assign(n[3], 0);
  w.dense_kernel.assign(n[4], 0);
  w.dense_bias.assign(n[5], 0);
  return w;
}

int64_t CnnParamCount(const CnnWeights& w) {
  return static_cast<int64_t>(w.conv1_kernel.size() + w.conv1_bias.size() +
                              w.conv2_kernel.size() + w.conv2_bias.size() +
                              w.dense_kernel.size() + w.dense_bias.size());
}

double CnnInferenceFlops(int batch) {
  return 2.0 * batch * (kConv1Macs + kConv2Macs + kDenseMacs);
}

double CnnTrainingFlops(int batch) {
  const double forward = kConv1Macs + kConv2Macs + kDenseMacs;
  const double weight_grads = forward;
  const double input_grads = kConv2Macs + kDenseMacs;
  return 2.0 * batch * (forward + weight_grads + input_grads);
}

}  // namespace tfipu_bench
