// Stopwatch: wall-clock seconds since construction or the last Restart.
//
//   Stopwatch sw;
//   for (...) Step();
//   double s = sw.Seconds();
#ifndef TOOLS_BENCH_STOPWATCH_H_
#define TOOLS_BENCH_STOPWATCH_H_

#include <chrono>

namespace tfipu_bench {

class Stopwatch {
 public:
  Stopwatch() : start_(Clock::now()) {}
  void Restart() { start_ = Clock::now(); }
  double Seconds() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
};

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_STOPWATCH_H_
