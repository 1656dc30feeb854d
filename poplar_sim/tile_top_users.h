// TileTopUsers: per tile, the few largest memory users seen so far.
//
//   TileTopUsers top(numTiles);
//   top.offer(tile, bytes, id);   // ids grow with each offer
//   for (const TileTopUsers::User& u : top.users(tile)) ...  // ascending ids
//
// The engine's out-of-memory error names the five largest users of the worst
// tile. Which tile is worst is known only once every compute set has been
// analysed; keeping every compute set's per-tile figures until then costs
// memory in proportion to the graph, and analysing them all again on the
// error path doubles the compile time of a graph that does not fit. Keeping
// the kKept largest per tile is enough: a user in the top kKept of all users
// of a tile (ranked by bytes, then by first offered) is also in the top
// kKept of the users offered here, ranked the same way.
#ifndef POPLAR_SIM_TILE_TOP_USERS_H_
#define POPLAR_SIM_TILE_TOP_USERS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace poplar_sim {
namespace internal {

class TileTopUsers {
 public:
  static constexpr size_t kKept = 5;

  struct User {
    uint64_t id = 0;
    uint64_t bytes = 0;
  };

  explicit TileTopUsers(unsigned numTiles)
      : users_(size_t{numTiles} * kKept), counts_(numTiles, 0) {}

  // Offers a user of `bytes` on `tile`. `id` must be larger than the ids of
  // the earlier offers on that tile: of users of equal size, the earlier is
  // kept.
  void offer(unsigned tile, uint64_t bytes, uint64_t id);

  // The kept users of `tile` (at most kKept), largest first, equal sizes in
  // offer order.
  absl::Span<const User> users(unsigned tile) const {
    return absl::MakeConstSpan(&users_[size_t{tile} * kKept], counts_[tile]);
  }

 private:
  std::vector<User> users_;      // kKept slots per tile
  std::vector<uint8_t> counts_;  // used slots per tile
};

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_TILE_TOP_USERS_H_
