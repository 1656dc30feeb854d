// Tests that would catch a wrong cost model (issue 3's list, plus exact
// values of the formulas in docs/poplar_sim.md).
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace {

uint64_t CeilDivForTest(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

using namespace program;  // NOLINT
using testing::SmallDevice;
using testing::SmallTarget;

// A compute set of `verticesPerTile` AddVectors vertices (n elements each)
// on each of `tiles` tiles, all data local. Returns its profile.
ComputeSetProfile AddCost(unsigned tiles, unsigned verticesPerTile, size_t n) {
  Graph graph(SmallTarget(8));
  ComputeSet cs = graph.addComputeSet("add");
  for (unsigned t = 0; t < tiles; ++t) {
    for (unsigned v = 0; v < verticesPerTile; ++v) {
      Tensor a = graph.addVariable(FLOAT, {n});
      Tensor out = graph.addVariable(FLOAT, {n});
      graph.setTileMapping(a, t);
      graph.setTileMapping(out, t);
      graph.setTileMapping(
          graph.addVertex(cs, "test::AddVectors", {{"a", a}, {"b", a}, {"out", out}}), t);
    }
  }
  auto e = Engine::create(graph, Execute(cs));
  EXPECT_TRUE(e.ok()) << e.status();
  return e->getProfile().computeSets[0];
}

TEST(CostModelTest, ExactComputeSetCost) {
  // One vertex: 6 workers x (10 + 14) cycles, plus one on-chip sync.
  ComputeSetProfile p = AddCost(1, 1, 14);
  EXPECT_EQ(p.maxTileCycles, 6u * 24);
  EXPECT_EQ(p.staticCost.computeCycles, 144u);
  EXPECT_EQ(p.staticCost.syncCycles, 90u);
  EXPECT_EQ(p.staticCost.exchangeCycles, 0u);
  EXPECT_EQ(p.staticCost.cycles(), 234u);
  // Six vertices fill the six workers: the same time as one.
  EXPECT_EQ(AddCost(1, 6, 14).maxTileCycles, 144u);
  // A seventh waits for a free worker.
  EXPECT_EQ(AddCost(1, 7, 14).maxTileCycles, 288u);
}

TEST(CostModelTest, TwiceTheWorkOnOneTileDoublesTheComputeSet) {
  ComputeSetProfile once = AddCost(1, 12, 100);
  ComputeSetProfile twice = AddCost(1, 24, 100);
  EXPECT_EQ(twice.staticCost.computeCycles, 2 * once.staticCost.computeCycles);
  const double ratio = double(twice.staticCost.cycles()) / once.staticCost.cycles();
  EXPECT_NEAR(ratio, 2.0, 0.1);
  // Twice the elements per vertex: almost exactly double too.
  const double perVertex =
      double(AddCost(1, 6, 2000).staticCost.computeCycles) /
      AddCost(1, 6, 1000).staticCost.computeCycles;
  EXPECT_NEAR(perVertex, 2.0, 0.02);
}

TEST(CostModelTest, SameWorkOverTwiceTheTilesHalves) {
  ComputeSetProfile one = AddCost(1, 24, 100);
  ComputeSetProfile two = AddCost(2, 12, 100);
  ComputeSetProfile four = AddCost(4, 6, 100);
  EXPECT_EQ(two.staticCost.computeCycles * 2, one.staticCost.computeCycles);
  EXPECT_EQ(four.staticCost.computeCycles * 4, one.staticCost.computeCycles);
  EXPECT_NEAR(double(two.staticCost.cycles()) / one.staticCost.cycles(), 0.5, 0.05);
}

TEST(CostModelTest, ComputeSetCostsItsSlowestTile) {
  Graph graph(SmallTarget(4));
  ComputeSet cs = graph.addComputeSet("skewed");
  for (unsigned t = 0; t < 2; ++t) {
    Tensor a = graph.addVariable(FLOAT, {t == 0 ? 10u : 1000u});
    graph.setTileMapping(a, t);
    Tensor out = graph.clone(a);
    graph.setTileMapping(
        graph.addVertex(cs, "test::AddVectors", {{"a", a}, {"b", a}, {"out", out}}), t);
  }
  auto e = Engine::create(graph, Execute(cs));
  ASSERT_TRUE(e.ok()) << e.status();
  const ComputeSetProfile& p = e->getProfile().computeSets[0];
  EXPECT_EQ(p.maxTileCycles, 6u * 1010);
  EXPECT_EQ(p.slowestTile, 1u);
  EXPECT_EQ(p.meanTileCycles, (6u * 20 + 6u * 1010) / 2);
}

TEST(CostModelTest, ExchangeIsBytesOverBandwidthOfTheBusiestTile) {
  Graph graph(SmallTarget(4));
  Tensor a = graph.addVariable(FLOAT, {100}, "a");
  Tensor out = graph.addVariable(FLOAT, {100}, "out");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(out, 1);
  ComputeSet cs = graph.addComputeSet("remote");
  // On tile 1, reading a (400 bytes) from tile 0 for both inputs.
  graph.setTileMapping(
      graph.addVertex(cs, "test::AddVectors", {{"a", a}, {"b", a}, {"out", out}}), 1);
  auto e = Engine::create(graph, Execute(cs));
  ASSERT_TRUE(e.ok()) << e.status();
  const StepCost& c = e->getProfile().computeSets[0].staticCost;
  EXPECT_EQ(c.exchangeBytes, 800u);
  EXPECT_EQ(c.exchangeCycles, 800u / 4);
  EXPECT_EQ(e->getTileMemory()[1].exchange, 800u);
  // An output on another tile costs a second sync and exchange phase.
  Graph g2(SmallTarget(4));
  Tensor b = g2.addVariable(FLOAT, {100}, "b");
  Tensor o2 = g2.addVariable(FLOAT, {100}, "o2");
  g2.setTileMapping(b, 0);
  g2.setTileMapping(o2, 2);
  ComputeSet cs2 = g2.addComputeSet("remoteOut");
  g2.setTileMapping(g2.addVertex(cs2, "test::AddVectors", {{"a", b}, {"b", b}, {"out", o2}}), 0);
  auto e2 = Engine::create(g2, Execute(cs2));
  ASSERT_TRUE(e2.ok()) << e2.status();
  const StepCost& c2 = e2->getProfile().computeSets[0].staticCost;
  EXPECT_EQ(c2.syncCycles, 180u);
  EXPECT_EQ(c2.exchangeCycles, 100u);
}

// A broadcast input crosses the exchange once per tile, not once per use:
// a scalar read by 100 elements is 4 bytes, a bias row under 10 rows is
// the row's bytes.
TEST(CostModelTest, BroadcastInputIsReceivedOnce) {
  Graph graph(SmallTarget(4));
  Tensor s = graph.addVariable(FLOAT, {1}, "scalar");
  Tensor row = graph.addVariable(FLOAT, {10}, "row");
  Tensor m = graph.addVariable(FLOAT, {10, 10}, "m");
  Tensor o1 = graph.addVariable(FLOAT, {100}, "o1");
  Tensor o2 = graph.addVariable(FLOAT, {10, 10}, "o2");
  graph.setTileMapping(s, 0);
  graph.setTileMapping(row, 0);
  for (Tensor t : {m, o1, o2}) graph.setTileMapping(t, 1);
  ComputeSet cs = graph.addComputeSet("broadcasts");
  graph.setTileMapping(graph.addVertex(cs, "test::AddVectors",
                                       {{"a", m.flatten()}, {"b", s.broadcast(100, 0)}, {"out", o1}}),
                       1);
  graph.setTileMapping(
      graph.addVertex(cs, "test::AddVectors",
                      {{"a", m.flatten()},
                       {"b", row.expand({0}).broadcast(10, 0).flatten()},
                       {"out", o2.flatten()}}),
      1);
  auto e = Engine::create(graph, Execute(cs));
  ASSERT_TRUE(e.ok()) << e.status();
  const StepCost& c = e->getProfile().computeSets[0].staticCost;
  EXPECT_EQ(c.exchangeBytes, 4u + 40u);
  EXPECT_EQ(c.exchangeCycles, 44u / 4);
}

TEST(CostModelTest, SameBytesCostMoreAcrossIPUsThanOnOne) {
  Graph graph(SmallTarget(4, 2));
  Tensor src = graph.addVariable(FLOAT, {10000}, "src");
  Tensor sameIpu = graph.addVariable(FLOAT, {10000}, "sameIpu");
  Tensor otherIpu = graph.addVariable(FLOAT, {10000}, "otherIpu");
  graph.setTileMapping(src, 0);
  graph.setTileMapping(sameIpu, 1);
  graph.setTileMapping(otherIpu, 5);
  auto e = Engine::create(graph, {Copy(src, sameIpu), Copy(src, otherIpu)});
  ASSERT_TRUE(e.ok()) << e.status();
  const StepCost& on = e->getProfile().steps[0].staticCost;
  const StepCost& across = e->getProfile().steps[1].staticCost;
  EXPECT_EQ(on.exchangeBytes, 40000u);
  EXPECT_EQ(on.interIpuBytes, 0u);
  EXPECT_EQ(on.cycles(), 90u + 40000 / 4);
  EXPECT_EQ(across.interIpuBytes, 40000u);
  EXPECT_GT(across.cycles(), on.cycles());
  EXPECT_GT(across.syncCycles, on.syncCycles);
}

TEST(CostModelTest, OnTileCopyIsALocalMemcpy) {
  Graph graph(SmallTarget(2));
  Tensor a = graph.addVariable(FLOAT, {1000}, "a");
  Tensor b = graph.addVariable(FLOAT, {1000}, "b");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(b, 0);
  auto e = Engine::create(graph, Copy(a, b));
  ASSERT_TRUE(e.ok()) << e.status();
  const StepCost& c = e->getProfile().steps[0].staticCost;
  EXPECT_EQ(c.computeCycles, 4000u / 8);
  EXPECT_EQ(c.exchangeCycles, 0u);
}

// Filling a variable from a broadcast element (a zero) is multicast: the
// source tile sends each destination tile its share at once, so the cost
// is one tile's share, not the whole variable.
TEST(CostModelTest, CopyFromABroadcastIsMulticast) {
  Graph graph(SmallTarget(8));
  Tensor zero = graph.addConstant(FLOAT, {1}, 0.0, "zero");
  graph.setTileMapping(zero, 0);
  Tensor v = graph.addVariable(FLOAT, {8, 1000}, "v");
  for (unsigned t = 0; t < 8; ++t) graph.setTileMapping(v[t], t);
  Tensor w = graph.addVariable(FLOAT, {8, 1000}, "w");
  graph.setTileMapping(w, 1);
  auto e = Engine::create(graph, Sequence({Copy(zero.broadcast(8000, 0), v),
                                           Copy(w, v)}));
  ASSERT_TRUE(e.ok()) << e.status();
  const Target& t = graph.getTarget();
  const StepCost& fill = e->getProfile().steps[1].staticCost;
  // Tile 0 sends 4000 bytes to each of tiles 1..7 at once; each receives
  // 4000: the busiest tile moves 4000 bytes, not 7 x 4000.
  EXPECT_EQ(fill.exchangeCycles, CeilDivForTest(4000, t.getExchangeBytesPerCycle()));
  EXPECT_EQ(fill.exchangeBytes, 7u * 4000);  // bytes still count per reader
  // Distinct data from one tile is not multicast: tile 1 sends 7 x 4000.
  const StepCost& scatter = e->getProfile().steps[2].staticCost;
  EXPECT_EQ(scatter.exchangeCycles, CeilDivForTest(7 * 4000, t.getExchangeBytesPerCycle()));
}

TEST(CostModelTest, LoopOfNIterationsCostsNBodiesPlusOneOverhead) {
  Device device = SmallDevice(2);
  Graph graph(device.getTarget());
  Tensor x = graph.addVariable(INT, {}, "x");
  graph.setTileMapping(x, 0);
  ComputeSet cs = graph.addComputeSet("inc");
  graph.setTileMapping(graph.addVertex(cs, "test::IncrementInt", {{"v", x}}), 0);
  auto engine = Engine::create(graph, {Repeat(100, Execute(cs)), Execute(cs)});
  ASSERT_TRUE(engine.ok()) << engine.status();
  {
    absl::Status status = engine->load(device);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = engine->run(1);
    ASSERT_TRUE(status.ok()) << status;
  }
  const uint64_t body = engine->getProfile().computeSets[0].staticCost.cycles();
  const uint64_t oneRun = engine->getLastRunStats().cycles;
  EXPECT_EQ(oneRun, body + device.getTarget().runOverheadCycles());
  {
    absl::Status status = engine->run(0);
    ASSERT_TRUE(status.ok()) << status;
  }
  const uint64_t loop = engine->getLastRunStats().cycles;
  const uint64_t loopOverhead = device.getTarget().arch().loopOverheadCycles;
  EXPECT_EQ(loop, 100 * (body + loopOverhead) + device.getTarget().runOverheadCycles());
  uint64_t hundredRuns = 0;
  for (int i = 0; i < 100; ++i) {
    {
      absl::Status status = engine->run(1);
      ASSERT_TRUE(status.ok()) << status;
    }
    hundredRuns += engine->getLastRunStats().cycles;
  }
  EXPECT_GT(hundredRuns, 10 * loop);  // the per-run overhead dominates
  EXPECT_EQ(engine->getProfile().computeSets[0].executions, 201u);
  EXPECT_EQ(engine->getCumulativeStats().runs, 102u);
}

TEST(CostModelTest, HostStreamCostAndSecondsFromCycles) {
  Device device = SmallDevice(2);
  Graph graph(device.getTarget());
  Tensor x = graph.addVariable(FLOAT, {1 << 16}, "x");
  graph.setTileMapping(x, 0);
  DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, 1 << 16);
  auto engine = Engine::create(graph, Copy(in, x));
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<float> buf(1 << 16);
  {
    absl::Status status = engine->connectStream("in", buf.data(), buf.data() + buf.size());
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = engine->load(device);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = engine->run();
    ASSERT_TRUE(status.ok()) << status;
  }
  const Target& t = device.getTarget();
  const RunStats& s = engine->getLastRunStats();
  EXPECT_EQ(s.cost.hostCycles, t.hostTransferCycles(1 << 18));
  EXPECT_EQ(s.cost.syncCycles, 90u);
  EXPECT_DOUBLE_EQ(s.seconds, s.cycles / t.getTileClockFrequency());
}

}  // namespace
}  // namespace poplar_sim
