#include "poplar_sim/poplin/matmul.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "Eigen/Core"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/testing/run_util.h"
#include "poplar_sim/testing/test_vertices.h"
#include "third_party/dnnl/one_thread_sgemm.h"

namespace poplar_sim {
namespace poplin {
namespace {

using ::testing::ElementsAre;
using testing::RunBothModes;

Tensor Const(Graph& g, std::vector<size_t> shape, std::vector<float> v,
             Type t = FLOAT) {
  Tensor c = g.addConstant<float>(t, std::move(shape), absl::MakeConstSpan(v));
  poputil::mapTensorLinearly(g, c);
  return c;
}

TEST(MatMulTest, SmallProductByHand) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor a = Const(g, {2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor b = Const(g, {3, 2}, {7, 8, 9, 10, 11, 12});
    Tensor h = matMul(g, Const(g, {2, 3}, {1, 2, 3, 4, 5, 6}, HALF),
                      Const(g, {3, 2}, {7, 8, 9, 10, 11, 12}, HALF), p);
    // A transposed view as input: (a^T)^T = a.
    Tensor at = Const(g, {3, 2}, {1, 4, 2, 5, 3, 6});
    return std::vector<Tensor>{matMul(g, a, b, p), h, matMul(g, at.transpose(), b, p)};
  });
  EXPECT_THAT(r[0], ElementsAre(58, 64, 139, 154));
  EXPECT_THAT(r[1], ElementsAre(58, 64, 139, 154));
  EXPECT_THAT(r[2], ElementsAre(58, 64, 139, 154));
}

// Products of empty matrices, as TensorFlow's MatMul: a depth of 0 gives
// zeros (each element an empty sum), and no rows or no columns an empty
// result; none of them is planned (a plan of no elements used to fail as
// if the product did not fit in memory).
TEST(MatMulTest, EmptyProducts) {
  std::vector<Tensor> products;
  auto r = RunBothModes([&](Graph& g, program::Sequence& p) {
    products = {matMul(g, Const(g, {2, 0}, {}), Const(g, {0, 3}, {}), p, "depth0"),
                matMul(g, Const(g, {2, 0}, {}, HALF), Const(g, {0, 3}, {}, HALF), p, "half0"),
                matMul(g, Const(g, {0, 4}, {}), Const(g, {4, 3}, std::vector<float>(12, 1.f)), p,
                       "rows0"),
                matMul(g, Const(g, {2, 4}, std::vector<float>(8, 1.f)), Const(g, {4, 0}, {}), p,
                       "cols0")};
    EXPECT_TRUE(g.status().ok()) << g.status();
    return std::vector<Tensor>{products[0], products[1]};
  });
  EXPECT_THAT(r[0], ElementsAre(0, 0, 0, 0, 0, 0));
  EXPECT_THAT(r[1], ElementsAre(0, 0, 0, 0, 0, 0));
  ASSERT_EQ(products.size(), 4u);
  EXPECT_EQ(products[1].elementType(), HALF);
  EXPECT_EQ(products[2].shape(), (std::vector<size_t>{0, 3}));
  EXPECT_EQ(products[3].shape(), (std::vector<size_t>{2, 0}));
}

// A host product replaces the generic one in bulk execution (here a
// deliberately different value, so that its use shows); one that declines
// leaves the generic product; the vertices, run one by one, never call it.
TEST(MatMulTest, HostProductStandsInForTheBulkProduct) {
  int calls = 0;
  auto build = [&](Graph& g, program::Sequence& p) {
    Tensor a = Const(g, {2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor b = Const(g, {3, 2}, {7, 8, 9, 10, 11, 12});
    HostProduct sevens = [&](ExecutionContext&, float* out) {
      ++calls;
      std::fill(out, out + 4, 7.f);
      return true;
    };
    HostProduct declines = [&](ExecutionContext&, float*) {
      ++calls;
      return false;
    };
    return std::vector<Tensor>{matMul(g, a, b, p, "host", {}, sevens),
                               matMul(g, a, b, p, "declined", {}, declines)};
  };
  auto bulk = testing::RunOnce(build, 4);
  EXPECT_THAT(bulk[0], ElementsAre(7, 7, 7, 7));
  EXPECT_THAT(bulk[1], ElementsAre(58, 64, 139, 154));
  EXPECT_EQ(calls, 2);
  calls = 0;
  auto vertices = testing::RunOnce(build, 4, {{"debug.executeVerticesIndividually", "true"}});
  EXPECT_THAT(vertices[0], ElementsAre(58, 64, 139, 154));
  EXPECT_EQ(calls, 0);
}

// Transposed views are read in place as column-major matrices by the bulk
// executor; the per-vertex execution gathers them. Both must agree.
TEST(MatMulTest, TransposedOperandsOnEitherSide) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor a = Const(g, {2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor at = Const(g, {3, 2}, {1, 4, 2, 5, 3, 6});
    Tensor b = Const(g, {3, 2}, {7, 8, 9, 10, 11, 12});
    Tensor bt = Const(g, {2, 3}, {7, 9, 11, 8, 10, 12});
    return std::vector<Tensor>{matMul(g, a, bt.transpose(), p),
                               matMul(g, at.transpose(), bt.transpose(), p),
                               // [3,2] x [2,3]: a^T a, a 3x3 result.
                               matMul(g, a.transpose(), a, p)};
  });
  EXPECT_THAT(r[0], ElementsAre(58, 64, 139, 154));
  EXPECT_THAT(r[1], ElementsAre(58, 64, 139, 154));
  EXPECT_THAT(r[2], ElementsAre(17, 22, 27, 22, 29, 36, 27, 36, 45));
}

TEST(MatMulTest, PlannerSplitsAllDimensionsAndMatchesEigen) {
  const size_t m = 24, k = 64, n = 20;
  std::vector<float> av(m * k), bv(k * n);
  for (size_t i = 0; i < av.size(); ++i) av[i] = float((i * 7) % 13) - 6;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = float((i * 5) % 11) * 0.25f;
  std::vector<double> expect(m * n, 0);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j)
      for (size_t q = 0; q < k; ++q) expect[i * n + j] += av[i * k + q] * bv[q * n + j];
  // A small memory budget forces a k split on 16 tiles.
  auto r = RunBothModes(
      [&](Graph& g, program::Sequence& p) {
        return std::vector<Tensor>{matMul(g, Const(g, {m, k}, av), Const(g, {k, n}, bv), p,
                                          "mm", {{"availableMemoryProportion", "0.004"}})};
      },
      16, 1e-3);
  for (size_t i = 0; i < m * n; ++i) EXPECT_NEAR(r[0][i], expect[i], 1e-3);
  auto plan = planMatMul(*Target::createIPUTarget(1, "ipu2", 16), 16, FLOAT, m, k, n, 0.004);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_GT(plan->splitK, 1u);
  EXPECT_LE(plan->tilesUsed(), 16u);
  EXPECT_LE(plan->bytesPerTile, uint64_t(0.004 * 638976));
}

// The same split with half operands: the bulk product goes through the
// first partial plane (float) and is rounded to half once, as the vertices
// round their float partial sums.
TEST(MatMulTest, AHalfProductSplitOverKIsTheRoundedFloatProduct) {
  const size_t m = 24, k = 64, n = 20;
  std::vector<float> av(m * k), bv(k * n);
  for (size_t i = 0; i < av.size(); ++i) av[i] = float((i * 7) % 13) - 6;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = float((i * 5) % 11) * 0.25f;
  auto r = RunBothModes(
      [&](Graph& g, program::Sequence& p) {
        return std::vector<Tensor>{matMul(g, Const(g, {m, k}, av, HALF),
                                          Const(g, {k, n}, bv, HALF), p, "mm",
                                          {{"availableMemoryProportion", "0.002"}})};
      },
      16, 0.0);
  ASSERT_EQ(r[0].size(), m * n);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double sum = 0;  // exact: small integers and quarters
      for (size_t q = 0; q < k; ++q) sum += av[i * k + q] * bv[q * n + j];
      EXPECT_EQ(r[0][i * n + j], static_cast<double>(static_cast<float>(Eigen::half(sum))))
          << i << "," << j;
    }
  }
  auto plan = planMatMul(*Target::createIPUTarget(1, "ipu2", 16), 16, HALF, m, k, n, 0.002);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_GT(plan->splitK, 1u);
}

TEST(MatMulTest, PlanCostsBehave) {
  const Target t = *Target::createIPUTarget(1, "ipu2");
  auto big = planMatMul(t, 1472, FLOAT, 1024, 1024, 1024);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_GT(big->tilesUsed(), 1000u);
  // The compute bound: m*k*n / (1472 tiles * 16 MAC) cycles at best.
  EXPECT_GT(big->estimatedCycles, 1024ull * 1024 * 1024 / (1472 * 16));
  auto fewTiles = planMatMul(t, 256, FLOAT, 1024, 1024, 1024);
  ASSERT_TRUE(fewTiles.ok()) << fewTiles.status();
  EXPECT_GT(fewTiles->estimatedCycles, 4 * big->estimatedCycles);
  // half is faster than float on the matrix unit.
  auto half = planMatMul(t, 1472, HALF, 1024, 1024, 1024);
  EXPECT_LT(half->estimatedCycles, big->estimatedCycles);
  // A product that cannot fit anywhere.
  EXPECT_EQ(planMatMul(t, 1, FLOAT, 4096, 4096, 4096).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(MatMulTest, EngineCostMatchesThePlanShape) {
  Graph g(*Target::createIPUTarget(1, "ipu2", 64));
  Tensor a = g.addVariable(FLOAT, {128, 256}, "a");
  Tensor b = g.addVariable(FLOAT, {256, 64}, "b");
  poputil::mapTensorLinearly(g, a);
  poputil::mapTensorLinearly(g, b);
  program::Sequence p;
  Tensor c = matMul(g, a, b, p, "mm");
  ASSERT_TRUE(c.valid()) << c.status();
  auto e = Engine::create(g, p);
  ASSERT_TRUE(e.ok()) << e.status();
  const ComputeSetProfile& cs = e->getProfile().computeSets[0];
  EXPECT_EQ(cs.name, "mm");
  EXPECT_GT(cs.numTiles, 32u);
  EXPECT_GT(cs.staticCost.exchangeBytes, 0u);
  // A multiply and an add for each of m x k x n products, however the
  // planner splits them.
  EXPECT_EQ(cs.flops, 2u * 128 * 256 * 64);
  Graph bad(*Target::createIPUTarget(1, "ipu2", 4));
  Tensor x = bad.addVariable(FLOAT, {2, 3});
  EXPECT_FALSE(matMul(bad, x, x, p).valid());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("[k,n]"));
}

// The product of [m,k] x [k,n] (b transposed in place if `bTransposed`; a
// variable the program writes if `bWritten`, else a constant), run on an
// engine with `threads` (nullptr: none), read back.
std::vector<float> RunProduct(size_t m, size_t k, size_t n, bool bTransposed,
                              HostThreads* threads, RunStats* stats, bool bWritten = false) {
  Device device = testing::SmallDevice(16);
  Graph g(device.getTarget());
  std::vector<float> av(m * k), bv(k * n);
  // Values whose products round, so that a different summation order
  // would show in the results' bits.
  for (size_t i = 0; i < av.size(); ++i) av[i] = float((i * 7) % 13) * 0.37f - 2.9f;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = float((i * 5) % 11) * 0.113f - 0.7f;
  program::Sequence p;
  Tensor stored = bTransposed ? Const(g, {n, k}, bv) : Const(g, {k, n}, bv);
  if (bWritten) {
    Tensor variable = g.addVariable(FLOAT, stored.shape(), "b");
    poputil::mapTensorLinearly(g, variable);
    p.add(program::Copy(stored, variable));
    stored = variable;
  }
  Tensor b = bTransposed ? stored.transpose() : stored;
  Tensor c = matMul(g, Const(g, {m, k}, av), b, p, "mm");
  g.createHostRead("c", c);
  auto e = Engine::create(g, p);
  EXPECT_TRUE(e.ok()) << e.status();
  if (!e.ok()) return {};
  {
    absl::Status status = e->load(device);
    EXPECT_TRUE(status.ok()) << status;
  }
  e->setHostThreads(threads);
  {
    absl::Status status = e->run();
    EXPECT_TRUE(status.ok()) << status;
  }
  *stats = e->getLastRunStats();
  std::vector<float> out(m * n);
  {
    absl::Status status = e->readTensor("c", out.data(), out.data() + out.size());
    EXPECT_TRUE(status.ok()) << status;
  }
  return out;
}

// Large bulk products are split over the engine's host threads, by rows
// when the output is tall, by columns when it is wide, and by depth when it
// has fewer than 48 rows; the values and the simulated cost are those of
// the single-threaded run.
class CountingThreads : public SpawnedHostThreads {
 public:
  CountingThreads() : SpawnedHostThreads(2) {}
  void parallelFor(unsigned n, const std::function<void(unsigned)>& fn) override {
    ++calls;
    shards += n;
    SpawnedHostThreads::parallelFor(n, fn);
  }
  int calls = 0;
  unsigned shards = 0;
};

TEST(MatMulTest, HostThreadsSplitLargeProductsWithoutChangingResults) {
  struct Shape { size_t m, k, n; bool bTransposed; };
  // The benchmark MLP's layer (by columns), its micro-batch of 8 and its
  // weight gradient's shape (by rows), and others.
  for (const Shape& s : {Shape{256, 72, 128, false}, Shape{40, 300, 200, false},
                         Shape{40, 300, 200, true}, Shape{32, 784, 256, false},
                         Shape{8, 784, 256, true}, Shape{784, 32, 256, false}}) {
    ASSERT_GE(s.m * s.k * s.n, size_t{1} << 20) << "big enough to be split";
    for (bool bWritten : {false, true}) {
      RunStats serialStats, threadedStats;
      CountingThreads two;
      std::vector<float> serial =
          RunProduct(s.m, s.k, s.n, s.bTransposed, nullptr, &serialStats, bWritten);
      std::vector<float> threaded =
          RunProduct(s.m, s.k, s.n, s.bTransposed, &two, &threadedStats, bWritten);
      EXPECT_EQ(two.calls, 1);
      EXPECT_EQ(two.shards, 2u);
      ASSERT_EQ(serial.size(), s.m * s.n);
      ASSERT_EQ(threaded.size(), s.m * s.n);
      for (size_t i = 0; i < serial.size(); ++i) {
        ASSERT_EQ(serial[i], threaded[i]) << "m=" << s.m << " n=" << s.n << " element " << i
                                          << (bWritten ? " (b a variable)" : " (b a constant)");
      }
      EXPECT_EQ(serialStats.cycles, threadedStats.cycles);
    }
  }
  // A small product stays on the calling thread.
  CountingThreads two;
  RunStats stats;
  RunProduct(32, 64, 64, false, &two, &stats);
  EXPECT_EQ(two.calls, 0);
}

// The benchmark MLP's second layer (1M multiply-adds) is split over the
// host threads (the forward product, the input gradient through the
// transposed weights), whether the run writes its weights (training) or
// they are constant (inference), and its values do not depend on which.
TEST(MatMulTest, OneMillionProductsSplitOverTheHostThreads) {
  struct Shape { size_t m, k, n; bool bTransposed; };
  for (const Shape& s : {Shape{32, 256, 128, false}, Shape{32, 128, 256, true}}) {
    ASSERT_EQ(s.m * s.k * s.n, size_t{1} << 20);
    std::vector<float> results[2];
    for (bool bWritten : {false, true}) {
      RunStats stats;
      CountingThreads two;
      results[bWritten] = RunProduct(s.m, s.k, s.n, s.bTransposed, &two, &stats, bWritten);
      EXPECT_EQ(two.calls, 1) << s.m << "x" << s.k << "x" << s.n
                              << (s.bTransposed ? " (b transposed)" : "")
                              << (bWritten ? " (b a variable)" : " (b a constant)");
    }
    ASSERT_EQ(results[0].size(), s.m * s.n);
    ASSERT_EQ(results[1].size(), s.m * s.n);
    // The same split either way: the same bits.
    for (size_t i = 0; i < s.m * s.n; ++i) {
      ASSERT_EQ(results[1][i], results[0][i]) << "element " << i
                                              << (s.bTransposed ? " (b transposed)" : "");
    }
  }
}

// A product of fewer than 48 rows is split by its depth into two fixed
// halves whose products are added (SplitByDepth in matmul_host.cc); its
// values are the product's, to float rounding, for either storage order of
// b, a variable or a constant.
TEST(MatMulTest, FewRowsSplitByDepthGiveTheProduct) {
  const size_t m = 32, k = 784, n = 256;
  for (bool bTransposed : {false, true}) {
    for (bool bWritten : {false, true}) {
      RunStats stats;
      CountingThreads two;
      std::vector<float> c = RunProduct(m, k, n, bTransposed, &two, &stats, bWritten);
      ASSERT_EQ(c.size(), m * n);
      for (size_t i : {size_t{0}, size_t{4321}, m * n - 1}) {
        const size_t r = i / n, col = i % n;
        double want = 0;
        for (size_t j = 0; j < k; ++j) {
          const float a = float(((r * k + j) * 7) % 13) * 0.37f - 2.9f;
          const size_t bi = bTransposed ? col * k + j : j * n + col;
          const float b = float((bi * 5) % 11) * 0.113f - 0.7f;
          want += double(a) * double(b);
        }
        EXPECT_NEAR(c[i], want, 1e-3 * std::max(1.0, std::abs(want)))
            << "element " << i << (bTransposed ? " (b transposed)" : "")
            << (bWritten ? " (b a variable)" : " (b a constant)");
      }
    }
  }
}

// The MLP's first layer on 16 tiles is planned with partial planes over
// its depth, and the host computes it as two products over the halves of
// its depth: the first plane gets one, the second plane the other, and the
// reduction adds them. So each output element is exactly the sum of the
// two halves' oneDNN products, with or without host threads. Through
// transposed weights (an input gradient's shape) the host does not split
// the depth, which runs along the weights' columns, but the output's
// columns (the weights' rows): each element is oneDNN's sum over the whole
// depth.
TEST(MatMulTest, ADepthSplitIntoPartialPlanesIsTheSumOfItsHalves) {
  const size_t m = 32, k = 784, n = 256, half = 384;
  Device device = testing::SmallDevice(16);
  absl::StatusOr<MatMulPlan> plan =
      planMatMul(device.getTarget(), device.getTarget().getNumTiles(), FLOAT, m, k, n, 0.6);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_GT(plan->splitK, 1u) << "the product must have partial planes";
  for (bool bTransposed : {false, true}) {
    std::vector<float> av(m * k), bv(k * n);
    for (size_t i = 0; i < av.size(); ++i) av[i] = float((i * 7) % 13) * 0.37f - 2.9f;
    for (size_t i = 0; i < bv.size(); ++i) bv[i] = float((i * 5) % 11) * 0.113f - 0.7f;
    // Columns [k0, k0 + depth) of a times rows [k0, k0 + depth) of b.
    auto part = [&](size_t k0, size_t depth) {
      std::vector<float> out(m * n);
      const float* bp = bTransposed ? bv.data() + k0 : bv.data() + k0 * n;
      EXPECT_TRUE(dnnl_one_thread::Sgemm(false, bTransposed, m, n, depth, av.data() + k0, k, bp,
                                         bTransposed ? k : n, out.data(), n));
      return out;
    };
    const std::vector<float> first = part(0, half), second = part(half, k - half);
    const std::vector<float> whole = part(0, k);
    for (bool threaded : {false, true}) {
      CountingThreads two;
      RunStats stats;
      std::vector<float> c =
          RunProduct(m, k, n, bTransposed, threaded ? &two : nullptr, &stats);
      ASSERT_EQ(c.size(), m * n);
      for (size_t i = 0; i < m * n; ++i) {
        ASSERT_EQ(c[i], bTransposed ? whole[i] : first[i] + second[i])
            << "element " << i << (bTransposed ? " (b transposed)" : "")
            << (threaded ? " (two host threads)" : " (no host threads)");
      }
    }
  }
}

}  // namespace
}  // namespace poplin
}  // namespace poplar_sim
