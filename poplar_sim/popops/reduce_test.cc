// Large reductions: popops::reduce must agree with a double-precision
// reference within float rounding however many elements it reduces, because
// it forms partials (at most kMaxPartialLength values per accumulator) and
// reduces them across tiles in further stages, as the IPU does.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/popops/reduce.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/testing/run_util.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace popops {
namespace {

using testing::RunBothModes;

// Runs `build` once (bulk executors only) on an IPU Model of `tiles` tiles
// and returns the float value of each returned one-element tensor.
std::vector<float> RunBulk(
    unsigned tiles,
    const std::function<std::vector<Tensor>(Graph&, program::Sequence&)>& build,
    unsigned hostThreads = 1) {
  std::unique_ptr<SpawnedHostThreads> threads;
  if (hostThreads > 1) threads = std::make_unique<SpawnedHostThreads>(hostThreads);
  std::vector<float> values;
  for (const std::vector<double>& out : testing::RunOnce(build, tiles, {}, threads.get())) {
    EXPECT_EQ(out.size(), 1u);
    values.push_back(out.empty() ? 0.f : static_cast<float>(out[0]));
  }
  return values;
}

// Integer sums and products wrap round instead of overflowing, and a
// scaled integer sum saturates at the type's range.
TEST(ReduceTest, IntegerSumsWrapRoundAndScaledSumsSaturate) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor t = g.addConstant<int32_t>(INT, {2, 3}, {INT32_MAX, 1, 0, 65536, 65536, 1});
    poputil::mapTensorLinearly(g, t);
    return std::vector<Tensor>{reduce(g, t, {1}, {Operation::ADD}, p),
                               reduce(g, t.slice(0, 2, 1), {1}, {Operation::MUL}, p),
                               reduce(g, t, {1}, {Operation::ADD, 1e20f}, p),
                               reduce(g, t, {0}, {Operation::ADD}, p)};
  });
  EXPECT_THAT(r[0], ::testing::ElementsAre(INT32_MIN, 131073));
  EXPECT_THAT(r[1], ::testing::ElementsAre(INT32_MAX, 0));  // 2^16 x 2^16 wraps to 0
  EXPECT_THAT(r[2], ::testing::ElementsAre(INT32_MIN, INT32_MAX));
  EXPECT_THAT(r[3], ::testing::ElementsAre(-2147418113.0, 65537, 1));
}

TEST(LargeReduceTest, SumOfTwoToThe26OnesIsExact) {
  // Sum(Fill([8192, 8192], 1)): one float accumulator stops at 2^24.
  std::vector<float> r = RunBulk(4, [](Graph& g, program::Sequence& p) {
    Tensor one = g.addConstant<float>(FLOAT, {1, 1}, 1.0f, "one");
    g.setTileMapping(one, 0);
    Tensor x = one.broadcast(8192, 0).broadcast(8192, 1);
    return std::vector<Tensor>{reduceSum(g, x, {0, 1}, p),
                               reduceMean(g, x, {0, 1}, p),
                               reduceMax(g, x, {0, 1}, p)};
  });
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], 67108864.0f);
  EXPECT_EQ(r[1], 1.0f);
  EXPECT_EQ(r[2], 1.0f);
}

TEST(LargeReduceTest, SumOfTwoToThe30ElementsIsExactAndFast) {
  // 2^30 elements of a broadcast: read in blocks, never copied whole (4 GiB).
  std::vector<float> r = RunBulk(16, [](Graph& g, program::Sequence& p) {
    Tensor v = g.addConstant<float>(FLOAT, {1, 1}, 0.5f, "half");
    g.setTileMapping(v, 3);
    Tensor x = v.broadcast(32768, 0).broadcast(32768, 1);
    return std::vector<Tensor>{reduceSum(g, x, {0, 1}, p),
                               reduceSum(g, x.reshape({1u << 30}), {0}, p)};
  });
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], 536870912.0f);  // 2^29
  EXPECT_EQ(r[1], 536870912.0f);
}

// A [rows, cols] constant of values drawn from `dist`, mapped linearly.
template <typename Dist>
Tensor RandomConstant(Graph& g, size_t rows, size_t cols, Dist dist,
                      std::vector<float>* values) {
  std::mt19937 rng(42);
  values->resize(rows * cols);
  for (float& v : *values) v = dist(rng);
  Tensor c = g.addConstant<float>(FLOAT, {rows, cols},
                                  absl::MakeConstSpan(*values), "x");
  poputil::mapTensorLinearly(g, c);
  return c;
}

TEST(LargeReduceTest, RandomValuesAgreeWithDoubleReference) {
  constexpr size_t kRows = 1024, kCols = 4096;  // 2^22 elements
  std::vector<float> x;
  auto r = RunBothModes(
      [&](Graph& g, program::Sequence& p) {
        Tensor t = RandomConstant(
            g, kRows, kCols, std::uniform_real_distribution<float>(0.f, 1.f), &x);
        Tensor signed_t = RandomConstant(
            g, kRows, kCols, std::uniform_real_distribution<float>(-1.f, 1.f), &x);
        return std::vector<Tensor>{
            reduceSum(g, t, {0, 1}, p), reduceMean(g, t, {0, 1}, p),
            reduceMax(g, signed_t, {0, 1}, p), reduceMin(g, signed_t, {0, 1}, p),
            reduceSum(g, t, {0}, p), reduceSum(g, t, {1}, p)};
      },
      1472);
  ASSERT_EQ(r.size(), 6u);
  // The reference, in double over the same values (x holds signed_t now;
  // rebuild t's values from the same seed).
  std::vector<float> t(kRows * kCols);
  {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> d(0.f, 1.f);
    for (float& v : t) v = d(rng);
  }
  double sum = 0, mx = -INFINITY, mn = INFINITY;
  std::vector<double> colSum(kCols, 0), rowSum(kRows, 0);
  for (size_t i = 0; i < kRows; ++i) {
    for (size_t j = 0; j < kCols; ++j) {
      const double v = t[i * kCols + j];
      sum += v;
      colSum[j] += v;
      rowSum[i] += v;
      mx = std::max<double>(mx, x[i * kCols + j]);
      mn = std::min<double>(mn, x[i * kCols + j]);
    }
  }
  // Float tolerance: a float sum of n positive terms, each stage summing at
  // most kMaxPartialLength of them, is within about sqrt(n) units in the
  // last place per stage; 1e-5 leaves room, and one float accumulator over
  // the 2^22 values would miss it.
  constexpr double kTol = 1e-5;
  EXPECT_NEAR(r[0][0], sum, kTol * sum);
  EXPECT_NEAR(r[1][0], sum / (kRows * kCols), kTol * sum / (kRows * kCols));
  EXPECT_EQ(r[2][0], mx);
  EXPECT_EQ(r[3][0], mn);
  for (size_t j = 0; j < kCols; ++j) {
    ASSERT_NEAR(r[4][j], colSum[j], kTol * colSum[j]) << "column " << j;
  }
  for (size_t i = 0; i < kRows; ++i) {
    ASSERT_NEAR(r[5][i], rowSum[i], kTol * rowSum[i]) << "row " << i;
  }
}

// Reducing the rows of a narrow matrix (a bias gradient): each column is a
// strided row of the reduction, in several stages, whose first-stage
// partials of one column form one strided run. The bulk executor reads
// them in place; RunBothModes checks it bit for bit against the vertices.
TEST(LargeReduceTest, ColumnsOfANarrowMatrixInStages) {
  constexpr size_t kRows = 8192, kCols = 3;
  std::vector<float> x(kRows * kCols), h(kRows * kCols);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>((i * 7919) % 1000) / 997.0f - 0.5f;
    h[i] = static_cast<float>(i % 5) - 2.0f;
  }
  auto r = RunBothModes(
      [&](Graph& g, program::Sequence& p) {
        Tensor t = g.addConstant<float>(FLOAT, {kRows, kCols}, absl::MakeConstSpan(x), "x");
        poputil::mapTensorLinearly(g, t);
        Tensor th = g.addConstant<float>(HALF, {kRows, kCols}, absl::MakeConstSpan(h), "h");
        poputil::mapTensorLinearly(g, th);
        return std::vector<Tensor>{reduceSum(g, t, {0}, p), reduceMax(g, t, {0}, p),
                                   reduceMean(g, t.slice(0, 1000, 0), {0}, p),
                                   reduceSum(g, th, {0}, p)};
      },
      4);
  ASSERT_EQ(r.size(), 4u);
  for (size_t j = 0; j < kCols; ++j) {
    double sum = 0, mean = 0, hs = 0;
    float mx = -INFINITY;
    for (size_t i = 0; i < kRows; ++i) {
      sum += x[i * kCols + j];
      mx = std::max(mx, x[i * kCols + j]);
      if (i < 1000) mean += x[i * kCols + j];
      hs += h[i * kCols + j];
    }
    EXPECT_NEAR(r[0][j], sum, 1e-3) << j;
    EXPECT_EQ(r[1][j], mx) << j;
    EXPECT_NEAR(r[2][j], mean / 1000, 1e-5) << j;
    EXPECT_EQ(r[3][j], hs) << j;
  }
}

// The columns of a [2999, 8] matrix: partials of 1,000 values, so each
// column's last partial is 999 values and one of padding. The bulk stage reads
// such rows in place (the strided values, then the padding) and must give
// exactly what the vertices give, for each operation.
TEST(LargeReduceTest, PaddedColumnsReadInPlaceAgreeWithTheVertices) {
  constexpr size_t kRows = 2999, kCols = 8;
  std::vector<float> x(kRows * kCols);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>((i * 7919) % 1000) / 499.0f - 1.0f;
  }
  // (The product's factors are near 1 in the rows it reads... and far from
  // it elsewhere: what matters is that both modes agree bit for bit.)
  auto r = RunBothModes(
      [&](Graph& g, program::Sequence& p) {
        Tensor t = g.addConstant<float>(FLOAT, {kRows, kCols}, absl::MakeConstSpan(x), "x");
        poputil::mapTensorLinearly(g, t);
        // The first 2,501 rows: partials of 834, the last 833 and one of padding.
        return std::vector<Tensor>{reduceSum(g, t, {0}, p), reduceMax(g, t, {0}, p),
                                   reduce(g, t, {0}, {Operation::MIN}, p),
                                   reduce(g, t.slice(0, 2501, 0), {0}, {Operation::MUL}, p)};
      },
      4);
  ASSERT_EQ(r.size(), 4u);
  for (size_t j = 0; j < kCols; ++j) {
    double sum = 0;
    float mx = -INFINITY, mn = INFINITY;
    for (size_t i = 0; i < kRows; ++i) {
      sum += x[i * kCols + j];
      mx = std::max(mx, x[i * kCols + j]);
      mn = std::min(mn, x[i * kCols + j]);
    }
    EXPECT_NEAR(r[0][j], sum, 1e-3) << j;
    EXPECT_EQ(r[1][j], mx) << j;
    EXPECT_EQ(r[2][j], mn) << j;
  }
}

TEST(LargeReduceTest, ProductAndHalfAcrossStages) {
  // 10000 factors (not a multiple of any partial length: the last partial
  // is padded with ones) and 8192 halves, each reduced in several stages.
  std::vector<float> f(10000);
  double prod = 1;
  for (size_t i = 0; i < f.size(); ++i) {
    f[i] = 1.0f + (static_cast<int>(i % 7) - 3) * 1e-4f;
    prod *= f[i];
  }
  auto r = RunBothModes(
      [&](Graph& g, program::Sequence& p) {
        Tensor c = g.addConstant<float>(FLOAT, {f.size()}, absl::MakeConstSpan(f), "f");
        poputil::mapTensorLinearly(g, c);
        Tensor h = g.addConstant<float>(HALF, {1}, 1.0f, "h");
        g.setTileMapping(h, 1);
        Tensor hb = h.reshape({1, 1}).broadcast(8192, 1).reshape({8192});
        Tensor m = g.addConstant<float>(FLOAT, {1, 1}, -3.0f, "m");
        g.setTileMapping(m, 2);
        return std::vector<Tensor>{
            reduce(g, c, {0}, {Operation::MUL}, p), reduceSum(g, hb, {0}, p),
            reduceMax(g, m.broadcast(5000, 1), {1}, p)};
      },
      16);
  // 10000 roundings of about half a unit in the last place each.
  EXPECT_NEAR(r[0][0], prod, 1e-4 * prod);
  EXPECT_EQ(r[1][0], 8192);
  EXPECT_EQ(r[2][0], -3);  // the -inf padding does not win
}

TEST(LargeReduceTest, TwoStagesAreCostedAsTwoComputeSets) {
  Graph g(*Target::createIPUTarget(1, "ipu2", 4));
  Tensor x = g.addVariable(FLOAT, {4 * 4096}, "x");
  for (unsigned t = 0; t < 4; ++t) g.setTileMapping(x.slice(t * 4096, (t + 1) * 4096), t);
  program::Sequence p;
  reduceSum(g, x, {0}, p, "sum");
  auto e = Engine::create(g, p);
  ASSERT_TRUE(e.ok()) << e.status();
  const auto& sets = e->getProfile().computeSets;
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].name, "sum");
  EXPECT_EQ(sets[1].name, "sum/stage1");
  // The partials are formed on the tiles that hold their inputs: the first
  // stage exchanges nothing; the second gathers 3 tiles' partials.
  EXPECT_EQ(sets[0].staticCost.exchangeBytes, 0u);
  EXPECT_GT(sets[1].staticCost.exchangeBytes, 0u);
  EXPECT_GT(sets[0].staticCost.computeCycles, sets[1].staticCost.computeCycles);
}

TEST(LargeReduceTest, ResultDoesNotDependOnHostThreads) {
  auto build = [](Graph& g, program::Sequence& p) {
    std::vector<float> x;
    Tensor t = RandomConstant(
        g, 512, 2048, std::uniform_real_distribution<float>(-1.f, 1.f), &x);
    return std::vector<Tensor>{reduceSum(g, t, {0, 1}, p)};
  };
  const std::vector<float> one = RunBulk(64, build, 1);
  const std::vector<float> two = RunBulk(64, build, 2);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(std::memcmp(&one[0], &two[0], sizeof(float)), 0);
}

}  // namespace
}  // namespace popops
}  // namespace poplar_sim
