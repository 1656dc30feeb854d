// PhiloxRandom-like counter-based random numbers: value i of stream
// (seed, seed2) depends only on those three numbers, so random tensors are
// the same in every process and for every thread count, and a kernel can
// fill a tensor in parallel chunks.
//
//   CounterRandom r(seed, seed2);
//   float u = r.Uniform(i);        // in [0, 1)
//   float n = r.Normal(i);         // mean 0, deviation 1
#ifndef TENSORFLOW_IPU_CORE_LIB_RANDOM_H_
#define TENSORFLOW_IPU_CORE_LIB_RANDOM_H_

#include <cmath>
#include <cstdint>

namespace tensorflow_ipu {

class CounterRandom {
 public:
  CounterRandom(uint64_t seed, uint64_t seed2)
      : key_(Mix(seed * 0x9E3779B97F4A7C15ULL + Mix(seed2 + 0x632BE59BD9B4E019ULL))) {}

  // 64 random bits for counter `i`.
  uint64_t Bits(uint64_t i) const { return Mix(key_ ^ Mix(i + 0x9E3779B97F4A7C15ULL)); }

  // Uniform in [0, 1), from the top 24 bits (every float of that grid is
  // reachable, 1 never is).
  float Uniform(uint64_t i) const {
    return static_cast<float>(Bits(i) >> 40) * (1.0f / 16777216.0f);
  }
  double UniformDouble(uint64_t i) const {
    return static_cast<double>(Bits(i) >> 11) * (1.0 / 9007199254740992.0);
  }
  // Standard normal by Box-Muller over two uniforms of counter `i`.
  double Normal(uint64_t i) const {
    const uint64_t b = Bits(i);
    const double u1 = (static_cast<double>(b >> 32) + 1.0) / 4294967297.0;
    const double u2 = static_cast<double>(b & 0xFFFFFFFFULL) / 4294967296.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  // SplitMix64's finaliser: a bijection with good avalanche.
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t key_;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_LIB_RANDOM_H_
