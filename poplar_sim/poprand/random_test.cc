#include "poplar_sim/poprand/random.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/popops/elementwise.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/testing/run_util.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace poprand {
namespace {

using ::testing::HasSubstr;
using testing::RunBothModes;

constexpr uint64_t kSeed = 0x0123456789ABCDEFull;
constexpr uint32_t kLo = 0x89ABCDEFu, kHi = 0x01234567u;

Tensor Ref(Graph& g, size_t n) {
  Tensor r = g.addVariable(FLOAT, {n}, "ref");
  poputil::mapTensorLinearly(g, r);
  return r;
}

TEST(RandomTest, SameSeedSameNumbersAndStatistics) {
  const size_t n = 20000;
  auto build = [&](uint64_t seed) {
    return [=](Graph& g, program::Sequence& p) {
      Tensor r = Ref(g, n);
      return std::vector<Tensor>{uniform(g, seed, 0, r, FLOAT, -1, 3, p),
                                 normal(g, seed, 0, r, FLOAT, 2, 0.5, p),
                                 bernoulli(g, seed, 0, r, FLOAT, 0.25, p)};
    };
  };
  auto a = RunBothModes(build(7), 8);   // also checks mapping independence:
  auto b = RunBothModes(build(7), 4);   // 8 vs 4 tiles
  auto c = RunBothModes(build(8), 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a[0], c[0]);
  double sum = 0, mn = 1e9, mx = -1e9;
  for (double v : a[0]) sum += v, mn = std::min(mn, v), mx = std::max(mx, v);
  EXPECT_NEAR(sum / n, 1.0, 0.05);  // mean of U(-1, 3)
  EXPECT_GE(mn, -1);
  EXPECT_LT(mx, 3);
  double m1 = 0, m2 = 0;
  for (double v : a[1]) m1 += v, m2 += v * v;
  m1 /= n;
  EXPECT_NEAR(m1, 2.0, 0.02);
  EXPECT_NEAR(std::sqrt(m2 / n - m1 * m1), 0.5, 0.02);
  double ones = 0;
  for (double v : a[2]) ones += v;
  EXPECT_NEAR(ones / n, 0.25, 0.02);
}

TEST(RandomTest, DropoutKeepsAndScales) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor x = g.addConstant<float>(FLOAT, {1000}, 2.0f, "x");
    poputil::mapTensorLinearly(g, x);
    return std::vector<Tensor>{dropout(g, 3, 1, x, 0.8, p),
                               dropout(g, 3, 2, x, 0.8, p)};
  });
  size_t kept = 0;
  for (double v : r[0]) {
    EXPECT_TRUE(v == 0 || std::abs(v - 2.5) < 1e-6) << v;
    kept += v != 0;
  }
  EXPECT_NEAR(kept / 1000.0, 0.8, 0.05);
  EXPECT_NE(r[0], r[1]);  // another modifier, another mask
}


// A draw just below 1 rounds to 1 in half (and rarely in float): uniform
// gives the largest value below the maximum instead.
TEST(RandomTest, UniformStaysBelowItsMaximumInHalfAndFloat) {
  const size_t n = 20000;
  auto r = RunBothModes([&](Graph& g, program::Sequence& p) {
    Tensor ref = Ref(g, n);
    return std::vector<Tensor>{uniform(g, 5, 0, ref, HALF, 0, 1, p),
                               uniform(g, 5, 0, ref, HALF, -2, -1, p),
                               uniform(g, 5, 0, ref, FLOAT, 0, 1, p)};
  });
  size_t justBelowOne = 0;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_GE(r[0][i], 0);
    EXPECT_LT(r[0][i], 1) << i;
    EXPECT_GE(r[1][i], -2);
    EXPECT_LT(r[1][i], -1) << i;
    EXPECT_LT(r[2][i], 1) << i;
    justBelowOne += r[0][i] == 1 - 1.0 / 2048;  // the largest half below 1
  }
  // 2^-12 of the draws round up to 1 in half; they become 1 - 2^-11, as
  // do the 2^-12 that round down to it: about 10 of 20000.
  EXPECT_GT(justBelowOne, 2u);
}

// The four distributions and dropout, from a constant seed or from a seed
// tensor holding the same value (a constant here: read like any tensor).
std::vector<Tensor> AllKinds(Graph& g, program::Sequence& p, bool seedTensor, size_t n) {
  Tensor r = Ref(g, n);
  Tensor x = g.addConstant<float>(FLOAT, {n}, 2.0f, "x");
  poputil::mapTensorLinearly(g, x);
  if (!seedTensor) {
    return {uniform(g, kSeed, 5, r, FLOAT, -1, 3, p),
            normal(g, kSeed, 5, r, HALF, 2, 0.5, p),
            truncatedNormal(g, kSeed, 5, r, FLOAT, 0, 1, 2, p),
            bernoulli(g, kSeed, 5, r, FLOAT, 0.25, p),
            dropout(g, kSeed, 5, x, 0.8, p)};
  }
  Tensor seed = g.addConstant<uint32_t>(UNSIGNED_INT, {2}, {kLo, kHi}, "seed");
  g.setTileMapping(seed, 0);
  return {uniform(g, &seed, 5, r, FLOAT, -1, 3, p),
          normal(g, &seed, 5, r, HALF, 2, 0.5, p),
          truncatedNormal(g, &seed, 5, r, FLOAT, 0, 1, 2, p),
          bernoulli(g, &seed, 5, r, FLOAT, 0.25, p),
          dropout(g, &seed, 5, x, 0.8, p)};
}

TEST(RandomSeedTensorTest, SameValueGivesTheNumbersOfTheConstantSeed) {
  const size_t n = 3000;
  auto constant = RunBothModes(
      [&](Graph& g, program::Sequence& p) { return AllKinds(g, p, false, n); }, 8);
  auto tensor = RunBothModes(
      [&](Graph& g, program::Sequence& p) { return AllKinds(g, p, true, n); }, 4);
  ASSERT_EQ(constant.size(), 5u);
  EXPECT_EQ(constant, tensor);
}

TEST(RandomSeedTensorTest, TruncatedNormalStaysInRangeAndKeepsNormalsInside) {
  const size_t n = 20000;
  auto r = RunBothModes([&](Graph& g, program::Sequence& p) {
    Tensor ref = Ref(g, n);
    return std::vector<Tensor>{normal(g, 11, 0, ref, FLOAT, 1, 2, p),
                               truncatedNormal(g, 11, 0, ref, FLOAT, 1, 2, 2, p)};
  });
  size_t redrawn = 0;
  double m1 = 0, m2 = 0;
  for (size_t i = 0; i < n; ++i) {
    const double z = r[1][i];
    EXPECT_GE(z, -3.0);  // mean 1 +- 2 x stddev 2
    EXPECT_LE(z, 5.0);
    // The first draw is normal()'s value; only values beyond are redrawn.
    if (std::abs(r[0][i] - 1) <= 4) {
      EXPECT_EQ(z, r[0][i]) << i;
    } else {
      ++redrawn;
    }
    m1 += z, m2 += z * z;
  }
  m1 /= n;
  // 4.55% of normals lie beyond 2 deviations; the sd of a normal truncated
  // at +-2 is 0.8796 of the normal's.
  EXPECT_NEAR(redrawn / double(n), 0.0455, 0.006);
  EXPECT_NEAR(m1, 1.0, 0.03);
  EXPECT_NEAR(std::sqrt(m2 / n - m1 * m1), 2 * 0.8796, 0.03);
}

// The per-iteration numbers of a loop that increments the low word of its
// seed tensor, and of runs with values written from the host in between.
class SeedTensorEngineTest : public ::testing::TestWithParam<bool> {
 protected:
  OptionFlags Options() const {
    return {{"debug.executeVerticesIndividually", GetParam() ? "true" : "false"}};
  }
  std::vector<double> ConstantSeedNumbers(uint64_t seed, size_t n) {
    Device device = testing::SmallDevice(4);
    Graph g(device.getTarget());
    program::Sequence p;
    Tensor u = uniform(g, seed, 9, Ref(g, n), FLOAT, 0, 1, p);
    g.createHostRead("u", u);
    auto engine = Engine::create(g, p, Options());
    EXPECT_TRUE(engine.ok()) << engine.status();
    std::vector<float> v(n);
    EXPECT_EQ(absl::OkStatus(), engine->load(device));
    EXPECT_EQ(absl::OkStatus(), engine->run());
    EXPECT_EQ(absl::OkStatus(), engine->readTensor("u", v.data(), v.data() + n));
    return std::vector<double>(v.begin(), v.end());
  }
};

TEST_P(SeedTensorEngineTest, ALoopIncrementingTheSeedDrawsFreshNumbersEachIteration) {
  const size_t n = 100;
  const unsigned iterations = 3;
  Device device = testing::SmallDevice(4);
  Graph g(device.getTarget());
  Tensor seed = g.addVariable(UNSIGNED_INT, {2}, "seed");
  g.setTileMapping(seed, 1);
  g.createHostWrite("seed", seed);
  Tensor one = g.addConstant<uint32_t>(UNSIGNED_INT, {1}, 1u, "one");
  g.setTileMapping(one, 1);
  Tensor ref = Ref(g, n);
  program::Sequence body;
  Tensor u = uniform(g, &seed, 9, ref, FLOAT, 0, 1, body);
  DataStream rows = g.addDeviceToHostFIFO("rows", FLOAT, n);
  body.add(program::Copy(u, rows));
  popops::addInPlace(g, seed.slice(0, 1), one, body);
  program::Sequence prog;
  prog.add(program::Repeat(iterations, body));
  ASSERT_TRUE(g.status().ok()) << g.status();
  auto engine = Engine::create(g, prog, Options());
  ASSERT_TRUE(engine.ok()) << engine.status();
  ASSERT_EQ(absl::OkStatus(), engine->load(device));
  std::vector<uint32_t> start = {40, 7};
  ASSERT_EQ(absl::OkStatus(), engine->writeTensor("seed", start.data(), start.data() + 2));
  std::vector<float> out(n * iterations);
  ASSERT_EQ(absl::OkStatus(), engine->connectStream("rows", out.data(), out.data() + out.size()));
  ASSERT_EQ(absl::OkStatus(), engine->run());
  // Iteration k has exactly the numbers of constant seed (7 << 32) | 40 + k.
  for (unsigned k = 0; k < iterations; ++k) {
    std::vector<double> row(out.begin() + k * n, out.begin() + (k + 1) * n);
    EXPECT_EQ(row, ConstantSeedNumbers((uint64_t{7} << 32) | (40 + k), n)) << k;
  }
  // A second run continues from the counter the first left (43).
  ASSERT_EQ(absl::OkStatus(), engine->run());
  std::vector<double> row(out.begin(), out.begin() + n);
  EXPECT_EQ(row, ConstantSeedNumbers((uint64_t{7} << 32) | 43, n));
  // Writing the seed between runs replays the first run.
  ASSERT_EQ(absl::OkStatus(), engine->writeTensor("seed", start.data(), start.data() + 2));
  ASSERT_EQ(absl::OkStatus(), engine->run());
  row.assign(out.begin(), out.begin() + n);
  EXPECT_EQ(row, ConstantSeedNumbers((uint64_t{7} << 32) | 40, n));
}

TEST_P(SeedTensorEngineTest, ChangingTheSeedBetweenRunsChangesTheNumbers) {
  const size_t n = 100;
  Device device = testing::SmallDevice(4);
  Graph g(device.getTarget());
  Tensor seed = g.addVariable(UNSIGNED_INT, {2}, "seed");
  g.setTileMapping(seed, 3);
  g.createHostWrite("seed", seed);
  program::Sequence prog;
  Tensor u = uniform(g, &seed, 9, Ref(g, n), FLOAT, 0, 1, prog);
  g.createHostRead("u", u);
  auto engine = Engine::create(g, prog, Options());
  ASSERT_TRUE(engine.ok()) << engine.status();
  ASSERT_EQ(absl::OkStatus(), engine->load(device));
  auto runWith = [&](uint32_t lo, uint32_t hi) {
    std::vector<uint32_t> s = {lo, hi};
    EXPECT_EQ(absl::OkStatus(), engine->writeTensor("seed", s.data(), s.data() + 2));
    EXPECT_EQ(absl::OkStatus(), engine->run());
    std::vector<float> v(n);
    EXPECT_EQ(absl::OkStatus(), engine->readTensor("u", v.data(), v.data() + n));
    return std::vector<double>(v.begin(), v.end());
  };
  const std::vector<double> a = runWith(1, 0), b = runWith(2, 0), c = runWith(1, 1);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);  // the high word counts too
  EXPECT_EQ(a, ConstantSeedNumbers(1, n));
  EXPECT_EQ(c, ConstantSeedNumbers((uint64_t{1} << 32) | 1, n));
  EXPECT_EQ(runWith(1, 0), a);
}

INSTANTIATE_TEST_SUITE_P(BothModes, SeedTensorEngineTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "PerVertex" : "Bulk";
                         });

TEST(RandomSeedTensorTest, BadSeedTensorsAreErrorsOnTheGraph) {
  struct Case {
    const char* what;
    std::function<Tensor(Graph&)> seed;  // invalid Tensor(): nullptr
    const char* message;
  };
  const std::vector<Case> cases = {
      {"missing", nullptr, "the seed tensor is missing"},
      {"float", [](Graph& g) { return g.addVariable(FLOAT, {2}, "s"); },
       "must be 2 UNSIGNED_INT (low and high word), not float[2]"},
      {"int", [](Graph& g) { return g.addVariable(INT, {2}, "s"); }, "not int[2]"},
      {"three words", [](Graph& g) { return g.addVariable(UNSIGNED_INT, {3}, "s"); },
       "not unsigned int[3]"},
      {"one word", [](Graph& g) { return g.addVariable(UNSIGNED_INT, {1, 1}, "s"); },
       "not unsigned int[1,1]"},
  };
  for (const Case& c : cases) {
    Graph g(testing::SmallTarget(4));
    program::Sequence p;
    Tensor seed;
    if (c.seed) {
      seed = c.seed(g);
      g.setTileMapping(seed, 0);
    }
    Tensor u = uniform(g, c.seed ? &seed : nullptr, 0, Ref(g, 10), FLOAT, 0, 1, p, "mask");
    EXPECT_FALSE(u.valid()) << c.what;
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(std::string(g.status().message()), HasSubstr("poprand Uniform 'mask': "))
        << c.what;
    EXPECT_THAT(std::string(g.status().message()), HasSubstr(c.message)) << c.what;
    EXPECT_EQ(u.status(), g.status()) << c.what;
    // The engine refuses the graph with the same error, not a crash.
    auto engine = Engine::create(g, p);
    EXPECT_EQ(engine.status(), g.status()) << c.what;
  }
  // An error tensor as the seed passes its own error on.
  Graph g(testing::SmallTarget(4));
  program::Sequence p;
  Tensor bad = Tensor::makeError(absl::InvalidArgumentError("upstream"));
  Tensor u = normal(g, &bad, 0, Ref(g, 10), FLOAT, 0, 1, p);
  EXPECT_EQ(u.status().message(), "upstream");
  EXPECT_EQ(g.status().message(), "upstream");
}

// Every vertex reads the seed: its words cross the exchange to each tile
// that does not hold them, and setting the generator costs cycles.
TEST(RandomSeedTensorTest, CostIncludesReadingTheSeed) {
  auto profile = [](bool seedTensor) {
    Device device = testing::SmallDevice(4);
    Graph g(device.getTarget());
    program::Sequence p;
    Tensor ref = Ref(g, 4000);
    if (seedTensor) {
      Tensor seed = g.addVariable(UNSIGNED_INT, {2}, "seed");
      g.setTileMapping(seed, 0);
      uniform(g, &seed, 0, ref, FLOAT, 0, 1, p, "u");
    } else {
      uniform(g, 3, 0, ref, FLOAT, 0, 1, p, "u");
    }
    auto engine = Engine::create(g, p);
    EXPECT_TRUE(engine.ok()) << engine.status();
    for (const ComputeSetProfile& cs : engine->getProfile().computeSets) {
      if (cs.name == "u") return cs;
    }
    ADD_FAILURE() << "no compute set 'u'";
    return ComputeSetProfile();
  };
  const ComputeSetProfile constant = profile(false), tensor = profile(true);
  EXPECT_EQ(constant.staticCost.exchangeBytes, 0u);
  // Tiles 1 to 3 each receive the two words.
  EXPECT_EQ(tensor.staticCost.exchangeBytes, 3u * 8u);
  EXPECT_GT(tensor.staticCost.exchangeCycles, 0u);
  // One vertex per tile; a tile runs its MultiVertex on all 6 workers.
  EXPECT_EQ(tensor.maxTileCycles, constant.maxTileCycles + 6 * 6);
}

}  // namespace
}  // namespace poprand
}  // namespace poplar_sim
