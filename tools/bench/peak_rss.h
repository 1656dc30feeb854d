// The resident memory of this process, from /proc/self/status: the current
// size (VmRSS) and the peak since start (VmHWM), in bytes.
//
//   size_t before = CurrentRssBytes();
//   RunModel();
//   size_t peak = PeakRssBytes();
#ifndef TOOLS_BENCH_PEAK_RSS_H_
#define TOOLS_BENCH_PEAK_RSS_H_

#include <cstddef>

namespace tfipu_bench {

// 0 when /proc is unavailable.
size_t CurrentRssBytes();
size_t PeakRssBytes();

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_PEAK_RSS_H_
