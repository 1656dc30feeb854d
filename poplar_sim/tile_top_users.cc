#include "poplar_sim/tile_top_users.h"

namespace poplar_sim {
namespace internal {

void TileTopUsers::offer(unsigned tile, uint64_t bytes, uint64_t id) {
  User* slots = &users_[size_t{tile} * kKept];
  size_t n = counts_[tile];
  // After the last kept user at least as large: ties keep the earlier.
  size_t pos = 0;
  while (pos < n && slots[pos].bytes >= bytes) ++pos;
  if (pos == kKept) return;
  if (n == kKept) --n;  // the smallest falls out
  for (size_t i = n; i > pos; --i) slots[i] = slots[i - 1];
  slots[pos] = User{id, bytes};
  counts_[tile] = static_cast<uint8_t>(n + 1);
}

}  // namespace internal
}  // namespace poplar_sim
