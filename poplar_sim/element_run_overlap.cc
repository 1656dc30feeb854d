#include "poplar_sim/element_run_overlap.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace poplar_sim::internal {
namespace {

using int128 = __int128;

// A run rewritten with a positive stride: elements lo, lo + stride, ..., hi.
struct Progression {
  int64_t lo;
  int64_t hi;
  int64_t stride;
};

// Returns g = gcd(a, b) and x with a * x == g (mod b), for a, b > 0.
int128 ExtendedGcd(int128 a, int128 b, int128* x) {
  int128 old_r = a, r = b, old_s = 1, s = 0;
  while (r != 0) {
    const int128 q = old_r / r;
    std::tie(old_r, r) = std::make_tuple(r, old_r - q * r);
    std::tie(old_s, s) = std::make_tuple(s, old_s - q * s);
  }
  *x = old_s;
  return old_r;
}

int128 FloorMod(int128 a, int128 m) {
  const int128 r = a % m;
  return r < 0 ? r + m : r;
}

// Whether two progressions share an element: the Chinese remainder theorem
// gives the common elements as one progression x0 + k * lcm, and the test
// is whether it has a term inside both ranges.
bool Intersect(const Progression& a, const Progression& b) {
  const int128 low = std::max(a.lo, b.lo);
  const int128 high = std::min(a.hi, b.hi);
  if (low > high) return false;
  int128 inverse;
  const int128 g = ExtendedGcd(a.stride, b.stride, &inverse);
  const int128 diff = int128{b.lo} - a.lo;
  if (diff % g != 0) return false;
  const int128 modulus = b.stride / g;
  // a.lo + a.stride * i == b.lo (mod b.stride)  <=>  i == diff/g * inverse.
  const int128 i = FloorMod(FloorMod(diff / g, modulus) * FloorMod(inverse, modulus), modulus);
  const int128 x0 = int128{a.lo} + a.stride * i;
  const int128 lcm = int128{a.stride} / g * b.stride;
  const int128 first = low + FloorMod(x0 - low, lcm);  // the first term >= low
  return first <= high;
}

// Runs of one stride name an element twice only if two of them have the
// same residue modulo the stride and overlapping ranges: sorted by
// (residue, lo), a run overlaps an earlier one exactly when it starts at
// or before the furthest end seen so far in its residue class.
bool SameStrideOverlap(std::vector<Progression>& runs) {
  if (runs.size() < 2) return false;
  const int64_t stride = runs[0].stride;
  auto key = [stride](const Progression& p) {
    return std::make_pair(static_cast<int64_t>(FloorMod(p.lo, stride)), p.lo);
  };
  std::sort(runs.begin(), runs.end(),
            [&](const Progression& x, const Progression& y) { return key(x) < key(y); });
  int64_t residue = key(runs[0]).first;
  int64_t furthest = runs[0].hi;
  for (size_t k = 1; k < runs.size(); ++k) {
    const int64_t r = key(runs[k]).first;
    if (r == residue && runs[k].lo <= furthest) return true;
    if (r != residue) {
      residue = r;
      furthest = runs[k].hi;
    } else {
      furthest = std::max(furthest, runs[k].hi);
    }
  }
  return false;
}

// Runs of different strides: a sweep in order of lo keeps, per stride, the
// runs whose range reaches the current start, and tests each against the
// new run exactly.
bool CrossStrideOverlap(std::vector<Progression> runs) {
  std::sort(runs.begin(), runs.end(),
            [](const Progression& x, const Progression& y) { return x.lo < y.lo; });
  std::map<int64_t, std::vector<Progression>> active;
  for (const Progression& run : runs) {
    for (auto& [stride, open] : active) {
      if (stride == run.stride) continue;
      open.erase(std::remove_if(open.begin(), open.end(),
                                [&](const Progression& p) { return p.hi < run.lo; }),
                 open.end());
      for (const Progression& p : open) {
        if (Intersect(p, run)) return true;
      }
    }
    active[run.stride].push_back(run);
  }
  return false;
}

}  // namespace

bool AnyElementRepeats(absl::Span<const ElementRun> runs) {
  // One run (most views a library connects) repeats only as a broadcast.
  if (runs.size() == 1) return runs[0].count > 1 && runs[0].stride == 0;
  // Per variable, then per stride.
  std::map<uint32_t, std::map<int64_t, std::vector<Progression>>> byVar;
  for (const ElementRun& r : runs) {
    if (r.count <= 0) continue;
    if (r.count == 1) {
      byVar[r.var][1].push_back(Progression{r.start, r.start, 1});
      continue;
    }
    if (r.stride == 0) return true;
    const int64_t last = r.at(r.count - 1);
    const int64_t stride = r.stride > 0 ? r.stride : -r.stride;
    const int64_t lo = std::min(r.start, last);
    byVar[r.var][stride].push_back(Progression{lo, std::max(r.start, last), stride});
  }
  for (auto& [var, byStride] : byVar) {
    std::vector<Progression> all;
    for (auto& [stride, group] : byStride) {
      if (SameStrideOverlap(group)) return true;
      all.insert(all.end(), group.begin(), group.end());
    }
    if (byStride.size() > 1 && CrossStrideOverlap(std::move(all))) return true;
  }
  return false;
}

}  // namespace poplar_sim::internal
