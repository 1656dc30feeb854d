#include "poplar_sim/tile_mapping.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace poplar_sim {
namespace {

using Piece = std::tuple<int64_t, int64_t, unsigned>;

std::vector<Piece> Pieces(const TileMapping& m, int64_t b, int64_t e) {
  std::vector<Piece> out;
  m.forEachPiece(b, e, [&](int64_t pb, int64_t pe, unsigned t) {
    out.emplace_back(pb, pe, t);
  });
  return out;
}

TEST(TileMappingTest, OverwriteSplitsAndMerges) {
  TileMapping m;
  m.set(0, 100, 3);
  m.set(50, 60, 4);
  EXPECT_EQ(m.tileOf(49), 3u);
  EXPECT_EQ(m.tileOf(55), 4u);
  EXPECT_EQ(m.tileOf(60), 3u);
  EXPECT_EQ(m.tileOf(100), TileMapping::kUnmapped);
  EXPECT_THAT(Pieces(m, 40, 70),
              ::testing::ElementsAre(Piece{40, 50, 3}, Piece{50, 60, 4},
                                     Piece{60, 70, 3}));
  m.set(50, 60, 3);  // back to one interval
  EXPECT_EQ(m.intervals().size(), 1u);
}

TEST(TileMappingTest, MappingInElementOrderAppendsAndMerges) {
  TileMapping m;
  m.set(0, 4, 1);
  m.set(4, 8, 1);   // continues tile 1's interval
  m.set(8, 10, 2);
  m.set(12, 14, 2); // after a gap: its own interval
  m.set(14, 15, 3);
  EXPECT_THAT(Pieces(m, 0, 16),
              ::testing::ElementsAre(Piece{0, 8, 1}, Piece{8, 10, 2},
                                     Piece{10, 12, TileMapping::kUnmapped}, Piece{12, 14, 2},
                                     Piece{14, 15, 3},
                                     Piece{15, 16, TileMapping::kUnmapped}));
  EXPECT_EQ(m.intervals().size(), 4u);
  m.set(10, 12, 2);  // fills the gap: tile 2's pieces become one
  EXPECT_THAT(Pieces(m, 8, 15),
              ::testing::ElementsAre(Piece{8, 14, 2}, Piece{14, 15, 3}));
  EXPECT_EQ(m.intervals().size(), 3u);
}

TEST(TileMappingTest, Unmapped) {
  TileMapping m;
  m.set(10, 20, 1);
  int64_t first;
  EXPECT_EQ(m.countUnmapped(30, &first), 20);
  EXPECT_EQ(first, 0);
  m.set(0, 10, 0);
  EXPECT_EQ(m.countUnmapped(30, &first), 10);
  EXPECT_EQ(first, 20);
  EXPECT_THAT(Pieces(m, 15, 25),
              ::testing::ElementsAre(Piece{15, 20, 1},
                                     Piece{20, 25, TileMapping::kUnmapped}));
}

// Random overwrites, checked element by element against a plain array, and
// the intervals kept canonical: disjoint, sorted, no equal-tile neighbours
// touching.
TEST(TileMappingTest, MatchesAnArrayUnderRandomOverwrites) {
  constexpr int64_t kN = 200;
  TileMapping m;
  std::vector<unsigned> ref(kN, TileMapping::kUnmapped);
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  for (int step = 0; step < 2000; ++step) {
    const int64_t b = static_cast<int64_t>(next(kN));
    const int64_t e = b + static_cast<int64_t>(next(20));
    const unsigned tile = static_cast<unsigned>(next(3));
    m.set(b, std::min(e, kN), tile);
    for (int64_t i = b; i < std::min(e, kN); ++i) ref[i] = tile;
    for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(m.tileOf(i), ref[i]) << step << " " << i;
    int64_t lastEnd = -1;
    unsigned lastTile = TileMapping::kUnmapped;
    for (const auto& [begin, endTile] : m.intervals()) {
      ASSERT_LT(begin, endTile.first);
      ASSERT_LE(lastEnd, begin);
      ASSERT_FALSE(lastEnd == begin && lastTile == endTile.second) << step;
      lastEnd = endTile.first;
      lastTile = endTile.second;
    }
  }
}

// Each strided walk gives every element's tileOf, for strides that step
// within an interval, across a few and across many, over mappings with
// gaps.
TEST(TileMappingTest, StridedElementsAreTheirTiles) {
  TileMapping m;
  uint64_t state = 777;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  for (int64_t b = 0; b < 1000;) {
    const int64_t len = 1 + static_cast<int64_t>(next(6));
    if (next(4) != 0) m.set(b, b + len, static_cast<unsigned>(next(5)));  // else a gap
    b += len;
  }
  for (int64_t stride : {1, 2, 3, 7, 40, 333}) {
    for (int64_t start : {0, 1, 5, 17}) {
      const int64_t count = (1000 - start + stride - 1) / stride;
      std::vector<unsigned> got;
      m.forEachStridedElement(start, count, stride, [&](unsigned t) { got.push_back(t); });
      ASSERT_EQ(got.size(), static_cast<size_t>(count));
      for (int64_t k = 0; k < count; ++k) {
        ASSERT_EQ(got[k], m.tileOf(start + k * stride)) << stride << " " << start << " " << k;
      }
    }
  }
  // Past the last interval, and an empty mapping.
  std::vector<unsigned> past;
  m.forEachStridedElement(990, 4, 10, [&](unsigned t) { past.push_back(t); });
  EXPECT_EQ(past.back(), TileMapping::kUnmapped);
  TileMapping empty;
  std::vector<unsigned> none;
  empty.forEachStridedElement(0, 3, 2, [&](unsigned t) { none.push_back(t); });
  EXPECT_THAT(none, ::testing::ElementsAre(TileMapping::kUnmapped, TileMapping::kUnmapped,
                                          TileMapping::kUnmapped));
}

}  // namespace
}  // namespace poplar_sim
