#include "poplar_sim/lane_threads.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace poplar_sim {
namespace internal {
namespace {

// Waiting briefly: a pause, and after a while a yield, so that a waiting
// thread never starves the one it waits for on a busy machine.
void Pause(unsigned& spins) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
  if (++spins % 64 == 0) std::this_thread::yield();
}

// A helper with nothing to do for long (a lane much longer than the others)
// naps between looks, rather than spin on a core other work could use.
void Idle(unsigned& spins) {
  if (spins >= 1u << 14) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  } else {
    Pause(spins);
  }
}

}  // namespace

void LaneThreads::Job::runClaimed() {
  for (unsigned i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
    (*fn)(i);
    done.fetch_add(1, std::memory_order_acq_rel);
  }
}

void LaneThreads::run(unsigned n, const std::function<void(unsigned)>& lane) {
  nextLane_.store(0, std::memory_order_relaxed);
  lanesLeft_.store(n, std::memory_order_release);
  // Each thread takes lanes until none is left, then helps: a thread never
  // waits for a lane nobody has taken.
  outer_.parallelFor(std::min(n, outer_.numThreads()), [&](unsigned) {
    for (unsigned l; (l = nextLane_.fetch_add(1, std::memory_order_relaxed)) < n;) {
      lane(l);
      lanesLeft_.fetch_sub(1, std::memory_order_acq_rel);
    }
    help();
  });
}

void LaneThreads::help() {
  unsigned spins = 0;
  while (lanesLeft_.load(std::memory_order_acquire) > 0) {
    std::shared_ptr<Job> job;
    if (posted_.load(std::memory_order_acquire) > 0) {
      std::lock_guard<std::mutex> lock(mu_);
      for (const std::shared_ptr<Job>& j : jobs_) {
        if (j->next.load(std::memory_order_relaxed) < j->n) {
          job = j;
          break;
        }
      }
    }
    if (job) {
      job->runClaimed();
      spins = 0;
    } else {
      Idle(spins);
    }
  }
}

void LaneThreads::parallelFor(unsigned n, const std::function<void(unsigned)>& fn) {
  if (n <= 1) {
    if (n == 1) fn(0);
    return;
  }
  auto job = std::make_shared<Job>(&fn, n);
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(job);
    posted_.fetch_add(1, std::memory_order_release);
  }
  job->runClaimed();
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.erase(std::find(jobs_.begin(), jobs_.end(), job));
    posted_.fetch_sub(1, std::memory_order_release);
  }
  // Parts a helper took may still be running.
  unsigned spins = 0;
  while (job->done.load(std::memory_order_acquire) < n) Pause(spins);
}

}  // namespace internal
}  // namespace poplar_sim
