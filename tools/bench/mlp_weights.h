// The weights of a dense MLP, and the one deterministic initialisation
// every contestant of a benchmark starts from.
//
//   MlpWeights w = GlorotUniformMlp({784, 256, 128, 10}, kBenchSeed);
//   w.layers[0].w;   // 784 x 256, row-major [in][out], as x * W in TF
//   w.layers[0].b;   // 256 zeros
//
// The generator is SplitMix64 with its own mapping to floats, so the values
// are the same on every machine and standard library (std:: distributions
// are implementation-defined).
#ifndef TOOLS_BENCH_MLP_WEIGHTS_H_
#define TOOLS_BENCH_MLP_WEIGHTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tfipu_bench {

// The benchmarks' model: 784-256(relu)-128(relu)-10.
inline const std::vector<int>& FashionMlpSizes() {
  static const std::vector<int>* sizes = new std::vector<int>{784, 256, 128, 10};
  return *sizes;
}
inline constexpr uint64_t kBenchSeed = 20240601;

struct DenseLayer {
  int in = 0;
  int out = 0;
  std::vector<float> w;  // in * out, row-major [in][out]
  std::vector<float> b;  // out
};

struct MlpWeights {
  std::vector<DenseLayer> layers;  // ReLU after every layer but the last

  int64_t NumParameters() const;
  size_t Bytes() const { return static_cast<size_t>(NumParameters()) * sizeof(float); }
};

// Glorot (Xavier) uniform weights, U(-l, l) with l = sqrt(6 / (in + out)),
// and zero biases, for layer sizes {in, hidden..., out}. Same seed, same
// weights.
MlpWeights GlorotUniformMlp(const std::vector<int>& sizes, uint64_t seed);

// SplitMix64: a tiny, well-mixed, portable generator.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, 1), 24 random bits.
  float NextUnitFloat() { return static_cast<float>(Next() >> 40) * 0x1.0p-24f; }

 private:
  uint64_t state_;
};

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_MLP_WEIGHTS_H_
