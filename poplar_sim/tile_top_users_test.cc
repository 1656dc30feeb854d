#include "poplar_sim/tile_top_users.h"

#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace poplar_sim {
namespace internal {
namespace {

std::vector<uint64_t> Ids(absl::Span<const TileTopUsers::User> users) {
  std::vector<uint64_t> ids;
  for (const TileTopUsers::User& u : users) ids.push_back(u.id);
  return ids;
}

TEST(TileTopUsersTest, KeepsTheLargestPerTileEarlierFirstOnTies) {
  TileTopUsers top(3);
  const uint64_t bytes[] = {10, 50, 20, 50, 5, 70, 20, 50};
  for (uint64_t id = 0; id < 8; ++id) top.offer(1, bytes[id], id);
  top.offer(2, 7, 100);
  EXPECT_EQ(Ids(top.users(1)), (std::vector<uint64_t>{5, 1, 3, 7, 2}));
  EXPECT_EQ(Ids(top.users(2)), (std::vector<uint64_t>{100}));
  EXPECT_TRUE(top.users(0).empty());
}

// Against the reference: all offers, stable-sorted by size, first kKept.
TEST(TileTopUsersTest, MatchesAStableSortOfEveryOffer) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    TileTopUsers top(1);
    std::vector<TileTopUsers::User> all;
    const int n = static_cast<int>(rng() % 20);
    for (int id = 0; id < n; ++id) {
      const uint64_t b = rng() % 6;  // many ties
      top.offer(0, b, id);
      all.push_back({static_cast<uint64_t>(id), b});
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    all.resize(std::min(all.size(), TileTopUsers::kKept));
    ASSERT_EQ(Ids(top.users(0)), Ids(all)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
