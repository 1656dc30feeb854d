#include "poplar_sim/poputil/tile_mapping.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace poplar_sim {
namespace poputil {
namespace {

using ::testing::ElementsAre;

TEST(MapTensorLinearlyTest, EvenChunksOfWholeGrains) {
  Graph graph(*Target::createIPUTarget(1, "ipu2", 4));
  TileToTensorMapping m = calcLinearTileMapping(graph, 10);
  EXPECT_THAT(m[0], ElementsAre(Interval{0, 3}));
  EXPECT_THAT(m[1], ElementsAre(Interval{3, 6}));
  EXPECT_THAT(m[2], ElementsAre(Interval{6, 8}));
  EXPECT_THAT(m[3], ElementsAre(Interval{8, 10}));
  // Grains of 4 are never split: 3 grains on 3 tiles.
  m = calcLinearTileMapping(graph, 10, 0, 4);
  EXPECT_THAT(m[0], ElementsAre(Interval{0, 4}));
  EXPECT_THAT(m[2], ElementsAre(Interval{8, 10}));
  EXPECT_TRUE(m[3].empty());
  // A minimum per tile keeps small tensors on few tiles.
  m = calcLinearTileMapping(graph, 10, 6);
  EXPECT_THAT(m[0], ElementsAre(Interval{0, 10}));
  EXPECT_TRUE(m[1].empty());
}

TEST(MapTensorLinearlyTest, OffsetWrapsRoundTheTiles) {
  Graph graph(*Target::createIPUTarget(1, "ipu2", 4));
  TileToTensorMapping m = calcLinearTileMapping(graph, 10, 0, 4, 2);
  EXPECT_TRUE(m[1].empty());
  EXPECT_THAT(m[2], ElementsAre(Interval{0, 4}));
  EXPECT_THAT(m[3], ElementsAre(Interval{4, 8}));
  EXPECT_THAT(m[0], ElementsAre(Interval{8, 10}));
}

// Small tensors do not all start at tile 0: each starts where a tensor of
// its size made just before it would have ended. Tensors using every tile
// start at tile 0, as before.
TEST(MapTensorLinearlyTest, SmallTensorsTakeTurnsOverTheTiles) {
  Graph graph(*Target::createIPUTarget(1, "ipu2", 8));
  std::vector<Tensor> small;
  for (int i = 0; i < 5; ++i) {
    small.push_back(graph.addVariable(FLOAT, {6}, "s"));  // 3 tiles of 2
    mapTensorLinearly(graph, small.back(), 2);
  }
  auto tiles = [&](const Tensor& t) {
    std::vector<unsigned> out;
    TileToTensorMapping m = graph.getTileMapping(t);
    for (unsigned tile = 0; tile < m.size(); ++tile) {
      if (!m[tile].empty()) out.push_back(tile);
    }
    return out;
  };
  EXPECT_THAT(tiles(small[0]), ElementsAre(0, 1, 2));
  EXPECT_THAT(tiles(small[1]), ElementsAre(3, 4, 5));
  EXPECT_THAT(tiles(small[2]), ElementsAre(0, 6, 7));  // wraps: 6, 7, 0
  EXPECT_THAT(graph.getTileMapping(small[2])[0], ElementsAre(Interval{4, 6}));
  EXPECT_THAT(tiles(small[3]), ElementsAre(1, 2, 3));
  Tensor big = graph.addVariable(FLOAT, {64}, "big");
  mapTensorLinearly(graph, big);
  EXPECT_THAT(graph.getTileMapping(big)[0], ElementsAre(Interval{0, 8}));
  // The same graph built again maps the same way.
  Graph again(*Target::createIPUTarget(1, "ipu2", 8));
  for (int i = 0; i < 5; ++i) {
    Tensor t = again.addVariable(FLOAT, {6}, "s");
    mapTensorLinearly(again, t, 2);
    EXPECT_EQ(again.getTileMapping(t), graph.getTileMapping(small[i]));
  }
}

TEST(MapTensorLinearlyTest, MapsEveryElementAndDuplicate) {
  Graph graph(*Target::createIPUTarget(1, "ipu2", 8));
  Tensor t = graph.addVariable(FLOAT, {5, 7}, "t");
  mapTensorLinearly(graph, t);
  size_t total = 0;
  forEachTileInterval(graph, t, [&](unsigned, Interval iv) { total += iv.size(); });
  EXPECT_EQ(total, 35u);
  program::Sequence prog;
  Tensor d = duplicate(graph, t, prog, "d");
  EXPECT_EQ(graph.getTileMapping(d), graph.getTileMapping(t));
  EXPECT_EQ(prog.node()->children.size(), 1u);
}

// Units of 3 elements over 4 tiles: 5 units on tiles 0, 0, 1, 2, 3 (u * 4
// / 5), the last taking the remainder; a unit size of 0 or an empty tensor
// maps nothing.
TEST(MapUnitsEvenlyTest, WholeUnitsSpreadAndTheRemainderWithTheLast) {
  Graph graph(*Target::createIPUTarget(1, "ipu2", 4));
  Tensor t = graph.addVariable(FLOAT, {16}, "t");
  EXPECT_THAT(mapUnitsEvenly(graph, t, 3), ElementsAre(0u, 0u, 1u, 2u, 3u));
  const TileToTensorMapping m = graph.getTileMapping(t);
  EXPECT_THAT(m[0], ElementsAre(Interval{0, 6}));
  EXPECT_THAT(m[3], ElementsAre(Interval{12, 16}));
  Tensor small = graph.addVariable(FLOAT, {2}, "small");
  EXPECT_THAT(mapUnitsEvenly(graph, small, 5), ElementsAre(0u));
  EXPECT_THAT(graph.getTileMapping(small)[0], ElementsAre(Interval{0, 2}));
  EXPECT_TRUE(mapUnitsEvenly(graph, t, 0).empty());
  EXPECT_TRUE(mapUnitsEvenly(graph, graph.addVariable(FLOAT, {0}, "empty"), 4).empty());
}

}  // namespace
}  // namespace poputil
}  // namespace poplar_sim
