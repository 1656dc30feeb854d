#include "poplar_sim/host_handoff.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace poplar_sim {
namespace internal {

uint64_t MeasureHostHandOffRoundTripNs(unsigned budgetMicros) {
  if (std::thread::hardware_concurrency() < 2) return 0;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::microseconds(budgetMicros);
  // Odd turns are the helper's to answer, even ones the caller's.
  std::atomic<int64_t> turn{0};
  std::atomic<bool> stop{false};
  std::thread helper([&] {
    for (int64_t mine = 1;; mine += 2) {
      while (turn.load(std::memory_order_acquire) != mine) {
        if (stop.load(std::memory_order_relaxed)) return;
      }
      turn.store(mine + 1, std::memory_order_release);
    }
  });
  constexpr int kRoundsPerTrial = 200;
  std::vector<double> trials;
  int64_t next = 1;
  bool late = false;
  while (!late && trials.size() < 9 && Clock::now() < deadline) {
    const Clock::time_point start = Clock::now();
    for (int r = 0; r < kRoundsPerTrial && !late; ++r) {
      turn.store(next, std::memory_order_release);
      // Without a core of its own the helper answers only after a time
      // slice: give up at the deadline rather than wait for it.
      for (unsigned spins = 0; turn.load(std::memory_order_acquire) != next + 1; ++spins) {
        if ((spins & 1023) == 1023 && Clock::now() > deadline) late = true;
        if (late) break;
      }
      next += 2;
    }
    if (!late) {
      trials.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                       kRoundsPerTrial);
    }
  }
  stop.store(true, std::memory_order_relaxed);
  helper.join();
  if (trials.empty()) return 0;
  std::sort(trials.begin(), trials.end());
  return static_cast<uint64_t>(trials[trials.size() / 2]);
}

uint64_t HostHandOffRoundTripNs() {
  // 3 ms at most, once: an engine is compiled once per program, and the
  // answer only chooses how the host runs it, never what it computes.
  static const uint64_t roundTrip = MeasureHostHandOffRoundTripNs(3000);
  return roundTrip;
}

uint64_t DefaultMinLaneWork(uint64_t roundTripNs) {
  constexpr uint64_t kDefault = 200000;
  return roundTripNs > kSlowHandOffNs ? 20 * kDefault : kDefault;
}

}  // namespace internal
}  // namespace poplar_sim
