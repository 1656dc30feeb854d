// poplin::matMulAcc: c += k * a b, fused into the product's blocks when the
// plan keeps the depth on one tile, through the partials' reduction when it
// splits it, and as a product then a scaled add when c overlaps an operand.
#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/poplin/matmul.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/testing/run_util.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace poplin {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::RunBothModes;

Tensor Const(Graph& g, std::vector<size_t> shape, std::vector<float> v, Type t = FLOAT) {
  Tensor c = g.addConstant<float>(t, std::move(shape), absl::MakeConstSpan(v));
  poputil::mapTensorLinearly(g, c);
  return c;
}

// A variable holding `v` (copied in by the program), to accumulate into.
Tensor Variable(Graph& g, program::Sequence& p, std::vector<size_t> shape, std::vector<float> v) {
  Tensor var = g.addVariable(FLOAT, shape, "acc");
  poputil::mapTensorLinearly(g, var);
  p.add(program::Copy(Const(g, shape, std::move(v)), var));
  return var;
}

TEST(MatMulAccTest, SmallProductByHandInBothModes) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor c = Variable(g, p, {2, 2}, {1, 2, 3, 4});
    // a b = [[58, 64], [139, 154]]
    matMulAcc(g, c, 2.0f, Const(g, {2, 3}, {1, 2, 3, 4, 5, 6}),
              Const(g, {3, 2}, {7, 8, 9, 10, 11, 12}), p, "acc");
    // Twice more, the second time with b transposed in place.
    matMulAcc(g, c, -1.0f, Const(g, {2, 3}, {1, 2, 3, 4, 5, 6}),
              Const(g, {2, 3}, {7, 9, 11, 8, 10, 12}).transpose(), p, "acc2");
    return std::vector<Tensor>{c};
  });
  EXPECT_THAT(r[0], ElementsAre(1 + 58, 2 + 64, 3 + 139, 4 + 154));
}

// Values whose products round, and their exact sums.
struct Operands {
  size_t m, k, n;
  std::vector<float> a, b, c0;
  explicit Operands(size_t m_, size_t k_, size_t n_) : m(m_), k(k_), n(n_) {
    a.resize(m * k);
    b.resize(k * n);
    c0.resize(m * n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float((i * 7) % 13) * 0.37f - 2.9f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float((i * 5) % 11) * 0.113f - 0.7f;
    for (size_t i = 0; i < c0.size(); ++i) c0[i] = float(i % 17) - 8.0f;
  }
  double Expected(size_t i, float scale) const {
    const size_t r = i / n, col = i % n;
    double sum = 0;
    for (size_t j = 0; j < k; ++j) sum += double(a[r * k + j]) * double(b[j * n + col]);
    return c0[i] + double(scale) * sum;
  }
};

// A small memory budget splits the depth over tiles: the partial sums'
// reduction adds into c, in both modes.
TEST(MatMulAccTest, DepthSplitOverTilesAddsThroughTheReduction) {
  const Operands o(24, 64, 20);
  auto plan = planMatMul(*Target::createIPUTarget(1, "ipu2", 16), 16, FLOAT, o.m, o.k, o.n, 0.004);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_GT(plan->splitK, 1u) << "the budget must split the depth";
  auto r = RunBothModes(
      [&](Graph& g, program::Sequence& p) {
        Tensor c = Variable(g, p, {o.m, o.n}, o.c0);
        matMulAcc(g, c, 0.5f, Const(g, {o.m, o.k}, o.a), Const(g, {o.k, o.n}, o.b), p, "acc",
                  {{"availableMemoryProportion", "0.004"}});
        return std::vector<Tensor>{c};
      },
      16, 1e-4);
  for (size_t i = 0; i < o.m * o.n; ++i) EXPECT_NEAR(r[0][i], o.Expected(i, 0.5f), 1e-4) << i;
}

// c += c b: the product must be whole before c changes.
TEST(MatMulAccTest, AnAccumulatorThatIsAlsoAnOperandSeesItsOldValue) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor c = Variable(g, p, {2, 2}, {1, 2, 3, 4});
    matMulAcc(g, c, 1.0f, c, Const(g, {2, 2}, {1, 1, 1, 1}), p, "self");
    return std::vector<Tensor>{c};
  });
  // c b = [[3, 3], [7, 7]].
  EXPECT_THAT(r[0], ElementsAre(4, 5, 10, 11));
}

// The fused product costs its blocks and the add of their outputs: more
// than the product alone, in the same number of compute sets.
TEST(MatMulAccTest, CostsTheProductAndTheAdd) {
  auto cycles = [](bool accumulate) {
    Device device = testing::SmallDevice(16);
    Graph g(device.getTarget());
    program::Sequence p;
    Tensor a = Const(g, {32, 64}, std::vector<float>(32 * 64, 1.0f));
    Tensor b = Const(g, {64, 48}, std::vector<float>(64 * 48, 1.0f));
    Tensor c = g.addVariable(FLOAT, {32, 48}, "c");
    poputil::mapTensorLinearly(g, c);
    if (accumulate) {
      matMulAcc(g, c, 1.0f, a, b, p, "fused");
    } else {
      g.createHostRead("t", matMul(g, a, b, p, "product"));
    }
    auto e = Engine::create(g, p);
    EXPECT_TRUE(e.ok()) << e.status();
    if (!e.ok()) return uint64_t{0};
    absl::Status s = e->load(device);
    EXPECT_TRUE(s.ok()) << s;
    s = e->run();
    EXPECT_TRUE(s.ok()) << s;
    return e->getLastRunStats().cycles;
  };
  const uint64_t product = cycles(false), fused = cycles(true);
  EXPECT_GT(fused, product);
  EXPECT_LT(fused, 2 * product);
}

// The benchmark MLP's weight gradient of a micro-batch of 8 (784x8x256, by
// rows) and a product of few rows (by columns) are split over two host
// threads with the bits of the single-threaded run.
TEST(MatMulAccTest, HostThreadsDoNotChangeTheBits) {
  for (const auto& [m, k, n] : {std::tuple<size_t, size_t, size_t>{784, 8, 256},
                                std::tuple<size_t, size_t, size_t>{8, 784, 256}}) {
    const Operands o(m, k, n);
    auto build = [&](Graph& g, program::Sequence& p) {
      Tensor c = Variable(g, p, {m, n}, o.c0);
      matMulAcc(g, c, -0.25f, Const(g, {m, k}, o.a), Const(g, {k, n}, o.b), p, "acc");
      return std::vector<Tensor>{c};
    };
    SpawnedHostThreads two(2);
    auto serial = testing::RunOnce(build, 16);
    auto threaded = testing::RunOnce(build, 16, {}, &two);
    ASSERT_EQ(serial.size(), 1u);
    ASSERT_EQ(threaded.size(), 1u);
    ASSERT_EQ(serial[0].size(), m * n);
    for (size_t i = 0; i < m * n; ++i) {
      ASSERT_EQ(serial[0][i], threaded[0][i])
          << "[" << m << "," << k << "," << n << "] element " << i;
      ASSERT_NEAR(serial[0][i], o.Expected(i, -0.25f),
                  1e-4 * std::max(1.0, std::abs(o.Expected(i, -0.25f))))
          << "[" << m << "," << k << "," << n << "] element " << i;
    }
  }
}

// Empty products add nothing: a depth of 0 leaves c as it was, and an
// accumulator with no elements is no error.
TEST(MatMulAccTest, EmptyProducts) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor c = Variable(g, p, {2, 3}, {1, 2, 3, 4, 5, 6});
    matMulAcc(g, c, 2.0f, Const(g, {2, 0}, {}), Const(g, {0, 3}, {}), p, "depth0");
    Tensor none = g.addVariable(FLOAT, {0, 3}, "none");
    matMulAcc(g, none, 2.0f, Const(g, {0, 4}, {}), Const(g, {4, 3}, std::vector<float>(12, 1.f)),
              p, "rows0");
    EXPECT_TRUE(g.status().ok()) << g.status();
    return std::vector<Tensor>{c};
  });
  EXPECT_THAT(r[0], ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(MatMulAccTest, RefusesWhatItCannotAccumulate) {
  struct Case {
    const char* what;
    std::function<void(Graph&, program::Sequence&)> build;
    const char* message;
  };
  const Case cases[] = {
      {"c of the wrong shape",
       [](Graph& g, program::Sequence& p) {
         Tensor c = Variable(g, p, {2, 3}, std::vector<float>(6, 0.f));
         matMulAcc(g, c, 1.f, Const(g, {2, 3}, std::vector<float>(6, 1.f)),
                   Const(g, {3, 2}, std::vector<float>(6, 1.f)), p, "shape");
       },
       "c 'acc' float[2,3]"},
      {"half operands",
       [](Graph& g, program::Sequence& p) {
         Tensor c = Variable(g, p, {2, 2}, std::vector<float>(4, 0.f));
         matMulAcc(g, c, 1.f, Const(g, {2, 3}, std::vector<float>(6, 1.f), HALF),
                   Const(g, {3, 2}, std::vector<float>(6, 1.f), HALF), p, "half");
       },
       "needs float matrices"},
      {"an accumulator that repeats elements",
       [](Graph& g, program::Sequence& p) {
         Tensor row = Variable(g, p, {1, 2}, std::vector<float>(2, 0.f));
         matMulAcc(g, row.broadcast(2, 0), 1.f, Const(g, {2, 3}, std::vector<float>(6, 1.f)),
                   Const(g, {3, 2}, std::vector<float>(6, 1.f)), p, "bcast");
       },
       "repeats elements"},
      {"a bad memory proportion",
       [](Graph& g, program::Sequence& p) {
         Tensor c = Variable(g, p, {2, 2}, std::vector<float>(4, 0.f));
         matMulAcc(g, c, 1.f, Const(g, {2, 3}, std::vector<float>(6, 1.f)),
                   Const(g, {3, 2}, std::vector<float>(6, 1.f)), p, "opt",
                   {{"availableMemoryProportion", "2"}});
       },
       "availableMemoryProportion must be in (0, 1]"},
  };
  for (const Case& c : cases) {
    Device device = testing::SmallDevice(4);
    Graph g(device.getTarget());
    program::Sequence p;
    c.build(g, p);
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument)
        << c.what << ": " << g.status();
    EXPECT_THAT(std::string(g.status().message()), HasSubstr(c.message)) << c.what;
  }
}

}  // namespace
}  // namespace poplin
}  // namespace poplar_sim
