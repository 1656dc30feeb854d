#include "tools/bench/mlp_weights.h"

#include <cmath>

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

TEST(MlpWeightsTest, ShapesFollowTheSizes) {
  MlpWeights m = GlorotUniformMlp({784, 256, 128, 10}, 1);
  ASSERT_EQ(m.layers.size(), 3u);
  EXPECT_EQ(m.layers[0].in, 784);
  EXPECT_EQ(m.layers[0].out, 256);
  EXPECT_EQ(m.layers[0].w.size(), 784u * 256u);
  EXPECT_EQ(m.layers[2].b.size(), 10u);
  EXPECT_EQ(m.NumParameters(), 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10);
  EXPECT_EQ(m.Bytes(), m.NumParameters() * sizeof(float));
}

TEST(MlpWeightsTest, SameSeedSameWeightsOtherSeedOtherWeights) {
  MlpWeights a = GlorotUniformMlp({20, 7, 3}, 42);
  MlpWeights b = GlorotUniformMlp({20, 7, 3}, 42);
  MlpWeights c = GlorotUniformMlp({20, 7, 3}, 43);
  EXPECT_EQ(a.layers[0].w, b.layers[0].w);
  EXPECT_EQ(a.layers[1].w, b.layers[1].w);
  EXPECT_NE(a.layers[0].w, c.layers[0].w);
}

TEST(MlpWeightsTest, GlorotUniformBoundsMeanAndZeroBias) {
  MlpWeights m = GlorotUniformMlp({784, 256}, kBenchSeed);
  const DenseLayer& l = m.layers[0];
  const double limit = std::sqrt(6.0 / (784 + 256));
  double sum = 0, sum_sq = 0;
  for (float v : l.w) {
    ASSERT_LE(std::fabs(v), limit);
    sum += v;
    sum_sq += static_cast<double>(v) * v;
  }
  const double n = static_cast<double>(l.w.size());
  EXPECT_NEAR(sum / n, 0.0, 0.01 * limit);
  // The variance of U(-l, l) is l^2 / 3.
  EXPECT_NEAR(sum_sq / n, limit * limit / 3, 0.01 * limit * limit);
  for (float v : l.b) EXPECT_EQ(v, 0.0f);
}

TEST(MlpWeightsTest, PinnedValuesDoNotDrift) {
  // The benchmarks' published figures assume these exact weights.
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xE220A8397B1DCDAFull);
  MlpWeights m = GlorotUniformMlp(FashionMlpSizes(), kBenchSeed);
  double checksum = 0;
  for (const DenseLayer& l : m.layers) {
    for (float v : l.w) checksum += v;
  }
  EXPECT_NEAR(checksum, 26.925682477597888, 1e-9);
}

}  // namespace
}  // namespace tfipu_bench
