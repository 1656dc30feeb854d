#include "poplar_sim/host_threads.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace poplar_sim {

void SpawnedHostThreads::parallelFor(unsigned n,
                                     const std::function<void(unsigned)>& fn) {
  std::vector<std::thread> started;
  started.reserve(n > 0 ? n - 1 : 0);
  for (unsigned i = 1; i < n; ++i) started.emplace_back(fn, i);
  if (n > 0) fn(0);
  for (std::thread& t : started) t.join();
}

void parallelRanges(HostThreads* threads, size_t extent,
                    const std::function<void(size_t, size_t)>& fn,
                    size_t grain) {
  grain = std::max<size_t>(1, grain);
  const size_t grains = extent / grain;  // whole grains; the rest joins the last range
  const size_t shards =
      threads == nullptr
          ? 1
          : std::max<size_t>(1, std::min<size_t>(threads->numThreads(), grains));
  if (shards <= 1) {
    fn(0, extent);
    return;
  }
  // The multiple of `grain` nearest to an even split.
  auto boundary = [&](size_t s) {
    return s == shards ? extent
                       : (extent * s + shards * grain / 2) / (shards * grain) * grain;
  };
  threads->parallelFor(static_cast<unsigned>(shards), [&](unsigned s) {
    fn(boundary(s), boundary(s + 1));
  });
}

}  // namespace poplar_sim
