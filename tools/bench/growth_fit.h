// The growth exponent of a cost: the slope k of the least-squares line
// through (log n, log t), so that t ~ c * n^k. Linear growth is k = 1.
//
//   GrowthFit f = FitGrowth({1e3, 1e4, 1e5}, {0.01, 0.1, 1.2});
//   f.exponent;   // ~1.04
#ifndef TOOLS_BENCH_GROWTH_FIT_H_
#define TOOLS_BENCH_GROWTH_FIT_H_

#include <vector>

namespace tfipu_bench {

struct GrowthFit {
  double exponent = 0;     // k
  double coefficient = 0;  // c
  double r_squared = 0;    // of the fit in log-log space
};

// Needs at least two points with distinct positive n and positive t; points
// with t <= 0 are skipped (a phase too fast to time). NaN exponent when
// fewer than two points remain.
GrowthFit FitGrowth(const std::vector<double>& n, const std::vector<double>& t);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_GROWTH_FIT_H_
