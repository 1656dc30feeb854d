#include "poplar_sim/tile_mapping.h"

#include <iterator>

namespace poplar_sim {

void TileMapping::set(int64_t begin, int64_t end, unsigned tile) {
  if (begin >= end) return;
  // Mapping a variable in element order (what libraries do) appends.
  if (map_.empty() || std::prev(map_.end())->second.first <= begin) {
    if (!map_.empty()) {
      auto last = std::prev(map_.end());
      if (last->second.first == begin && last->second.second == tile) {
        last->second.first = end;
        return;
      }
    }
    map_.emplace_hint(map_.end(), begin, std::make_pair(end, tile));
    return;
  }
  // Split an interval straddling `begin` or `end`, then erase the inside.
  auto splitAt = [this](int64_t x) {
    auto it = map_.upper_bound(x);
    if (it == map_.begin()) return;
    --it;
    if (it->first < x && it->second.first > x) {
      auto [e, t] = it->second;
      it->second.first = x;
      map_.emplace(x, std::make_pair(e, t));
    }
  };
  splitAt(begin);
  splitAt(end);
  // A B-tree's iterators do not survive an insertion or erasure: each step
  // continues from the iterator the last one returned.
  auto next = map_.erase(map_.lower_bound(begin), map_.lower_bound(end));
  // Merge with equal-tile neighbours to keep the map small.
  int64_t newEnd = end;
  if (next != map_.end() && next->first == end && next->second.second == tile) {
    newEnd = next->second.first;
    next = map_.erase(next);
  }
  if (next != map_.begin()) {
    auto prev = std::prev(next);
    if (prev->second.first == begin && prev->second.second == tile) {
      prev->second.first = newEnd;
      return;
    }
  }
  map_.emplace_hint(next, begin, std::make_pair(newEnd, tile));
}

unsigned TileMapping::tileOf(int64_t element) const {
  auto it = map_.upper_bound(element);
  if (it == map_.begin()) return kUnmapped;
  --it;
  return element < it->second.first ? it->second.second : kUnmapped;
}

int64_t TileMapping::countUnmapped(int64_t n, int64_t* firstUnmapped) const {
  int64_t count = 0;
  *firstUnmapped = -1;
  forEachPiece(0, n, [&](int64_t b, int64_t e, unsigned tile) {
    if (tile != kUnmapped) return;
    if (*firstUnmapped < 0) *firstUnmapped = b;
    count += e - b;
  });
  return count;
}

}  // namespace poplar_sim
