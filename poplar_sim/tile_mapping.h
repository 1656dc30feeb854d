// TileMapping: which tile holds each element of one variable.
//
// Stored as disjoint intervals of element indices, so the cost is per
// interval, never per element. Later assignments overwrite earlier ones,
// as repeated Graph::setTileMapping calls do in Poplar. A tensor spread
// over every tile of 16 IPUs has tens of thousands of intervals, so they
// sit in a B-tree (about 24 bytes each) rather than a std::map (a 64-byte
// node each).
//
//   TileMapping m;
//   m.set(0, 100, 3);      // elements [0, 100) on tile 3
//   m.set(50, 60, 4);      // [50, 60) moves to tile 4
//   m.tileOf(55);          // 4
//   m.forEachPiece(40, 70, [](int64_t b, int64_t e, unsigned tile) {...});
//   // (40,50,3) (50,60,4) (60,70,3)
#ifndef POPLAR_SIM_TILE_MAPPING_H_
#define POPLAR_SIM_TILE_MAPPING_H_

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>

#include "absl/container/btree_map.h"

namespace poplar_sim {

// A half-open interval [begin, end) of element indices (poplar::Interval).
struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
  bool operator==(const Interval& o) const {
    return begin == o.begin && end == o.end;
  }
};

class TileMapping {
 public:
  static constexpr unsigned kUnmapped = std::numeric_limits<unsigned>::max();

  // Maps [begin, end) to `tile`, overwriting what was there.
  void set(int64_t begin, int64_t end, unsigned tile);
  // kUnmapped if the element has no tile.
  unsigned tileOf(int64_t element) const;
  // Number of elements of [0, n) without a tile, and the first of them.
  int64_t countUnmapped(int64_t n, int64_t* firstUnmapped) const;
  // Calls f(begin, end, tile) for the maximal pieces of [begin, end), in
  // order; unmapped pieces get tile kUnmapped.
  template <typename F>
  void forEachPiece(int64_t begin, int64_t end, F&& f) const;
  // Calls f(tile) for the elements start, start + stride, ... (`count` of
  // them, stride > 0) in order, each element's tileOf: found by stepping
  // through the intervals from one element to the next (a view's column of
  // a matrix mapped in blocks) rather than by a search for each, unless
  // the next element is many intervals on.
  template <typename F>
  void forEachStridedElement(int64_t start, int64_t count, int64_t stride, F&& f) const;
  const absl::btree_map<int64_t, std::pair<int64_t, unsigned>>& intervals() const {
    return map_;
  }

 private:
  // begin -> (end, tile); disjoint, adjacent equal-tile pieces merged.
  absl::btree_map<int64_t, std::pair<int64_t, unsigned>> map_;
};

template <typename F>
void TileMapping::forEachPiece(int64_t begin, int64_t end, F&& f) const {
  int64_t pos = begin;
  auto it = map_.upper_bound(pos);
  if (it != map_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.first > pos) it = prev;
  }
  while (pos < end) {
    if (it == map_.end() || it->first >= end) {
      f(pos, end, kUnmapped);
      return;
    }
    if (it->first > pos) {
      f(pos, it->first, kUnmapped);
      pos = it->first;
    }
    const int64_t e = std::min(end, it->second.first);
    f(pos, e, it->second.second);
    pos = e;
    ++it;
  }
}

template <typename F>
void TileMapping::forEachStridedElement(int64_t start, int64_t count, int64_t stride,
                                        F&& f) const {
  // `it`: the first interval that ends after element x (or end()).
  auto seek = [this](int64_t x) {
    auto it = map_.upper_bound(x);
    if (it != map_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.first > x) return prev;
    }
    return it;
  };
  constexpr int kMaxSteps = 8;
  auto it = seek(start);
  int64_t x = start;
  for (int64_t k = 0; k < count; ++k) {
    if (k > 0) x += stride;  // never past the last element: no overflow
    int steps = 0;
    while (it != map_.end() && it->second.first <= x && steps < kMaxSteps) {
      ++it;
      ++steps;
    }
    if (it != map_.end() && it->second.first <= x) it = seek(x);
    f(it != map_.end() && it->first <= x ? it->second.second : kUnmapped);
  }
}

}  // namespace poplar_sim

#endif  // POPLAR_SIM_TILE_MAPPING_H_
