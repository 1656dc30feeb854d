#include "poplar_sim/host_handoff.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace poplar_sim {
namespace internal {
namespace {

using Clock = std::chrono::steady_clock;

// A new thread starts on its creator's core and moves to an idle one only
// when the scheduler balances the load: on a 2-vCPU VM the first round
// trips took a 4-8 ms time slice each, for up to 30 ms. The measurement
// starts once the two threads have answered each other many times in a row
// without yielding, i.e. each on a core of its own; this wait has its own
// bound, apart from the measurement's budget.
constexpr auto kSettleWait = std::chrono::milliseconds(50);
constexpr int kSettledRounds = 64;

uint64_t Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return static_cast<uint64_t>(v[v.size() / 2]);
}

// Odd turns are the helper's to answer, even ones the caller's.
class TurnTaking {
 public:
  TurnTaking() : callerCpu_(sched_getcpu()), helper_([this] { Answer(); }) {}
  ~TurnTaking() {
    stop_.store(true, std::memory_order_relaxed);
    helper_.join();
  }
  // One round trip; false if the answer had not come by `deadline`. With
  // `yielded`, it yields now and then while waiting, so that a helper
  // sharing this core (not yet moved) gets to answer, and says whether it
  // did.
  bool RoundTrip(Clock::time_point deadline, bool* yielded = nullptr) {
    if (yielded != nullptr) *yielded = false;
    turn_.store(next_, std::memory_order_release);
    for (unsigned spins = 1; turn_.load(std::memory_order_acquire) != next_ + 1; ++spins) {
      if ((spins & 1023) == 0) {
        if (Clock::now() > deadline) return false;
        if (yielded != nullptr) {
          std::this_thread::yield();
          *yielded = true;
        }
      }
    }
    next_ += 2;
    return true;
  }

 private:
  void Answer() {
    AvoidCallersCore();
    for (int64_t mine = 1;; mine += 2) {
      for (unsigned spins = 1; turn_.load(std::memory_order_acquire) != mine; ++spins) {
        if (stop_.load(std::memory_order_relaxed)) return;
        if ((spins & 1023) == 0) std::this_thread::yield();
      }
      turn_.store(mine + 1, std::memory_order_release);
    }
  }
  // Asks for any allowed core but the caller's, so that the scheduler
  // need not find out by itself that the two threads should not share
  // one. A hint: without it (one allowed core, an error) the settling
  // above still waits for the scheduler.
  void AvoidCallersCore() {
    cpu_set_t allowed;
    if (callerCpu_ < 0 || sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
    CPU_CLR(callerCpu_, &allowed);
    if (CPU_COUNT(&allowed) == 0) return;
    pthread_setaffinity_np(pthread_self(), sizeof(allowed), &allowed);
  }
  std::atomic<int64_t> turn_{0};
  std::atomic<bool> stop_{false};
  int64_t next_ = 1;
  const int callerCpu_;
  std::thread helper_;  // last: it starts on construction
};

}  // namespace

uint64_t MeasureHostHandOffRoundTripNs(unsigned budgetMicros) {
  if (std::thread::hardware_concurrency() < 2) return 0;
  TurnTaking turns;
  const Clock::time_point settleDeadline = Clock::now() + kSettleWait;
  for (int quick = 0; quick < kSettledRounds;) {
    bool yielded = false;
    if (!turns.RoundTrip(settleDeadline, &yielded)) return 0;
    quick = yielded ? 0 : quick + 1;
  }
  const Clock::time_point deadline = Clock::now() + std::chrono::microseconds(budgetMicros);
  constexpr int kRoundsPerTrial = 200;
  std::vector<double> trials;
  while (trials.size() < 9 && Clock::now() < deadline) {
    const Clock::time_point start = Clock::now();
    for (int r = 0; r < kRoundsPerTrial; ++r) {
      // Spinning only: a yield would be timed too.
      if (!turns.RoundTrip(deadline)) return trials.empty() ? 0 : Median(trials);
    }
    trials.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                     kRoundsPerTrial);
  }
  return trials.empty() ? 0 : Median(trials);
}

uint64_t HostHandOffRoundTripNs() {
  // 3 ms at most, once: an engine is compiled once per program, and the
  // answer only chooses how the host runs it, never what it computes.
  static const uint64_t roundTrip = MeasureHostHandOffRoundTripNs(3000);
  return roundTrip;
}

uint64_t DefaultMinLaneWork(uint64_t roundTripNs) {
  constexpr uint64_t kDefault = 200000;
  return roundTripNs == 0 || roundTripNs > kSlowHandOffNs ? 20 * kDefault : kDefault;
}

}  // namespace internal
}  // namespace poplar_sim
