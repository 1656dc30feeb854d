#include "tools/bench/mlp_weights.h"

#include <cmath>

namespace tfipu_bench {

uint64_t SplitMix64::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t MlpWeights::NumParameters() const {
  int64_t n = 0;
  for (const DenseLayer& l : layers) n += static_cast<int64_t>(l.w.size() + l.b.size());
  return n;
}

MlpWeights GlorotUniformMlp(const std::vector<int>& sizes, uint64_t seed) {
  MlpWeights m;
  SplitMix64 rng(seed);
  for (size_t k = 0; k + 1 < sizes.size(); ++k) {
    DenseLayer l;
    l.in = sizes[k];
    l.out = sizes[k + 1];
    const float limit = std::sqrt(6.0f / static_cast<float>(l.in + l.out));
    l.w.resize(static_cast<size_t>(l.in) * l.out);
    for (float& v : l.w) v = (2.0f * rng.NextUnitFloat() - 1.0f) * limit;
    l.b.assign(l.out, 0.0f);
    m.layers.push_back(std::move(l));
  }
  return m;
}

}  // namespace tfipu_bench
