#include "Eigen/Core"
#include "poplar_sim/graph.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace {

using ::testing::ElementsAre;
using testing::SmallTarget;

TEST(GraphTest, TileMappingOfViews) {
  Graph graph(SmallTarget(4));
  Tensor m = graph.addVariable(FLOAT, {4, 4}, "m");
  for (unsigned r = 0; r < 4; ++r) graph.setTileMapping(m[r], r);
  TileToTensorMapping tm = graph.getTileMapping(m);
  ASSERT_EQ(tm.size(), 4u);
  EXPECT_THAT(tm[2], ElementsAre(Interval{8, 12}));
  // The transpose: column c of m^T is row c of m -> every tile holds one
  // element of each row of the transpose.
  TileToTensorMapping tt = graph.getTileMapping(m.transpose());
  EXPECT_THAT(tt[1], ElementsAre(Interval{1, 2}, Interval{5, 6}, Interval{9, 10},
                                 Interval{13, 14}));
  // Remapping a column moves those elements only.
  graph.setTileMapping(m.slice(0, 1, 1), 3);
  EXPECT_THAT(graph.getTileMapping(m)[0], ElementsAre(Interval{1, 4}));
}

// getTileIntervals lists what getTileMapping lists, tile by tile, leaving
// out the tiles without elements.
std::vector<std::pair<unsigned, Interval>> Flattened(const TileToTensorMapping& m) {
  std::vector<std::pair<unsigned, Interval>> out;
  for (unsigned tile = 0; tile < m.size(); ++tile) {
    for (const Interval& iv : m[tile]) out.emplace_back(tile, iv);
  }
  return out;
}

TEST(GraphTest, TileIntervalsAreTheMappingWithoutEmptyTiles) {
  Graph graph(SmallTarget(4));
  Tensor m = graph.addVariable(FLOAT, {4, 4}, "m");
  for (unsigned r = 0; r < 4; ++r) graph.setTileMapping(m[r], 3 - r);
  graph.setTileMapping(m.slice(0, 1, 1), 1);  // column 0 to tile 1
  Tensor partly = graph.addVariable(FLOAT, {6}, "partly");
  graph.setTileMapping(partly.slice(0, 2), 2);
  graph.setTileMapping(partly.slice(4, 6), 2);  // 2..3 unmapped between
  const std::vector<Tensor> views = {m, m.transpose(), m.slice(1, 3, 1), m.reverse(0),
                                     m[2].broadcast(3, 0), partly};
  for (const Tensor& t : views) {
    EXPECT_EQ(graph.getTileIntervals(t), Flattened(graph.getTileMapping(t)))
        << t.shapeToString();
  }
  // Rows 0..3 on tiles 3..0, column 0 on tile 1: tile 0 holds m[3][1..4),
  // tile 1 row 2 and the column, merged where they touch.
  EXPECT_THAT(graph.getTileIntervals(m),
              ElementsAre(std::pair<unsigned, Interval>{0, {13, 16}},
                          std::pair<unsigned, Interval>{1, {0, 1}},
                          std::pair<unsigned, Interval>{1, {4, 5}},
                          std::pair<unsigned, Interval>{1, {8, 13}},
                          std::pair<unsigned, Interval>{2, {5, 8}},
                          std::pair<unsigned, Interval>{3, {1, 4}}));
  // Unmapped elements are in no interval.
  EXPECT_THAT(graph.getTileIntervals(partly),
              ElementsAre(std::pair<unsigned, Interval>{2, {0, 2}},
                          std::pair<unsigned, Interval>{2, {4, 6}}));
}

TEST(GraphTest, ContainsConstantLooksThroughViewsAndConcatenations) {
  Graph graph(SmallTarget(4));
  Tensor v = graph.addVariable(FLOAT, {3}, "v");
  Tensor c = graph.addConstant<float>(FLOAT, {2}, {1.f, 2.f}, "c");
  EXPECT_FALSE(graph.containsConstant(v));
  EXPECT_TRUE(graph.containsConstant(c));
  EXPECT_TRUE(graph.containsConstant(c.slice(1, 2)));
  EXPECT_TRUE(graph.containsConstant(concat({v, c})));
  EXPECT_FALSE(graph.containsConstant(concat({v, v}).slice(0, 4)));
}

TEST(GraphTest, MappingByIntervalsAndClone) {
  Graph graph(SmallTarget(4));
  Tensor v = graph.addVariable(INT, {10}, "v");
  TileToTensorMapping tm(4);
  tm[0] = {Interval{0, 3}};
  tm[3] = {Interval{3, 10}};
  graph.setTileMapping(v, tm);
  EXPECT_EQ(graph.getTileMapping(v), tm);
  Tensor c = graph.clone(v, "c");
  EXPECT_EQ(c.getDebugName(), "c");
  EXPECT_EQ(graph.getTileMapping(c), tm);
  Tensor h = graph.clone(HALF, v.reverse(0));
  EXPECT_EQ(h.elementType(), HALF);
  EXPECT_THAT(graph.getTileMapping(h)[3], ElementsAre(Interval{0, 7}));
  tm[1] = {Interval{8, 12}};
  graph.setTileMapping(v, tm);
  EXPECT_FALSE(graph.status().ok());
}

TEST(GraphTest, ConstantsHoldTheirValues) {
  testing::SmallDevice();
  Device device = testing::SmallDevice(2);
  Graph graph(device.getTarget());
  Tensor a = graph.addConstant<float>(FLOAT, {3}, {1.5f, 2.5f, -1});
  Tensor b = graph.addConstant<int32_t>(HALF, {2}, 7);
  Tensor c = graph.addConstant<double>(INT, {2}, {3.9, -3.9});
  for (Tensor t : {a, b, c}) graph.setTileMapping(t, 1);
  graph.createHostRead("a", a);
  graph.createHostRead("b", b);
  graph.createHostRead("c", c);
  graph.addConstant<float>(FLOAT, {3}, {1.0f, 2.0f}, "wrong");
  EXPECT_THAT(std::string(graph.status().message()),
              ::testing::HasSubstr("2 values for shape [3]"));
  Graph ok(device.getTarget());
  Tensor a2 = ok.addConstant<float>(FLOAT, {3}, {1.5f, 2.5f, -1}, "a2");
  Tensor b2 = ok.addConstant<int32_t>(HALF, {2}, 7, "b2");
  Tensor c2 = ok.addConstant<double>(INT, {2}, {3.9, -3.9}, "c2");
  for (Tensor t : {a2, b2, c2}) ok.setTileMapping(t, 1);
  ok.createHostRead("a", a2);
  ok.createHostRead("b", b2);
  ok.createHostRead("c", c2);
  auto e = Engine::create(ok, program::Sequence());
  ASSERT_TRUE(e.ok()) << e.status();
  {
    absl::Status status = e->load(device);
    ASSERT_TRUE(status.ok()) << status;
  }
  std::vector<float> fa(3);
  {
    absl::Status status = e->readTensor("a", fa.data(), fa.data() + 3);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_THAT(fa, ElementsAre(1.5f, 2.5f, -1));
  Eigen::half hb[2];
  {
    absl::Status status = e->readTensor("b", hb, hb + 2);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(static_cast<float>(hb[1]), 7.0f);
  int32_t ic[2];
  {
    absl::Status status = e->readTensor("c", ic, ic + 2);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(ic[0], 3);
  EXPECT_EQ(ic[1], -3);
}

TEST(GraphTest, ForeignTensorsAndComputeSetsAreRejected) {
  Graph g1(SmallTarget(2)), g2(SmallTarget(2));
  Tensor t = g2.addVariable(FLOAT, {2}, "t2");
  g1.setTileMapping(t, 0);
  EXPECT_THAT(std::string(g1.status().message()),
              ::testing::HasSubstr("'t2' belongs to another graph"));
  Graph g3(SmallTarget(2));
  ComputeSet cs = g2.addComputeSet();
  g3.addVertex(cs, "test::SumVector");
  EXPECT_FALSE(g3.status().ok());
  Graph g4(SmallTarget(2));
  ComputeSet c4 = g4.addComputeSet("c4");
  g4.addVertex(c4, "NotRegistered");
  EXPECT_EQ(g4.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(g4.status().message()),
              ::testing::HasSubstr("POPLAR_SIM_REGISTER_VERTEX"));
}

}  // namespace
}  // namespace poplar_sim
