#include "poplar_sim/lane_threads.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <queue>
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

// Which of the LaneThreads' threads this is (set where each starts its
// share of run() or runGraph(); 0 elsewhere).
thread_local unsigned tlsThread = 0;

// The caller of run() or runGraph() is thread 0, the others 1, 2, ... as
// they arrive: not the shard index the outer threads give, since a pool
// may hand shard 0 to a helper and part 0's data sits in the caller's
// cache (it runs the products outside lanes, part 0 first, as RunShards
// does).
unsigned ThreadNumber(std::thread::id caller, std::atomic<unsigned>& helpers) {
  if (std::this_thread::get_id() == caller) return 0;
  return 1 + helpers.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

void LaneThreads::Job::runClaimed(unsigned thread, unsigned numThreads) {
  auto runPart = [&](unsigned i) {
    unclaimed.fetch_sub(1, std::memory_order_relaxed);
    (*fn)(i);
    done.fetch_add(1, std::memory_order_acq_rel);
  };
  for (unsigned i = thread; i < n; i += std::max(1u, numThreads)) {
    if (claim(i)) runPart(i);
  }
  for (unsigned i = 0; i < n && unclaimed.load(std::memory_order_relaxed) > 0; ++i) {
    if (claim(i)) runPart(i);
  }
}

void LaneThreads::run(unsigned n, const std::function<void(unsigned)>& lane) {
  nextLane_.store(0, std::memory_order_relaxed);
  lanesLeft_.store(n, std::memory_order_release);
  // Each thread takes lanes until none is left, then helps: a thread never
  // waits for a lane nobody has taken.
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<unsigned> helpers{0};
  outer_.parallelFor(std::min(n, outer_.numThreads()), [&](unsigned) {
    tlsThread = ThreadNumber(caller, helpers);
    for (unsigned l; (l = nextLane_.fetch_add(1, std::memory_order_relaxed)) < n;) {
      lane(l);
      lanesLeft_.fetch_sub(1, std::memory_order_acq_rel);
    }
    help();
  });
}

bool LaneThreads::helpOnce() {
  std::shared_ptr<Job> job;
  if (posted_.load(std::memory_order_acquire) > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::shared_ptr<Job>& j : jobs_) {
      if (j->unclaimed.load(std::memory_order_relaxed) > 0) {
        job = j;
        break;
      }
    }
  }
  if (!job) return false;
  job->runClaimed(tlsThread, numThreads());
  return true;
}

void LaneThreads::help() {
  unsigned spins = 0;
  while (lanesLeft_.load(std::memory_order_acquire) > 0) {
    if (helpOnce()) {
      spins = 0;
    } else {
      Idle(spins);
    }
  }
}

void LaneThreads::runGraph(const std::vector<std::vector<unsigned>>& dependents,
                           std::vector<unsigned> deps,
                           const std::function<bool(unsigned)>& task) {
  const unsigned n = static_cast<unsigned>(deps.size());
  std::mutex mu;
  // The ready tasks, the first in index order on top; how many tasks are
  // neither finished nor dropped; the first task that failed (n: none).
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>> ready;
  unsigned unfinished = n;
  unsigned stopAt = n;
  for (unsigned t = 0; t < n; ++t) {
    if (deps[t] == 0) ready.push(t);
  }
  // Under mu: task t is finished (or dropped); its dependents after a
  // failure are dropped, and theirs, since they will never run.
  auto finish = [&](unsigned t) {
    std::vector<unsigned> done = {t};
    while (!done.empty()) {
      const unsigned d = done.back();
      done.pop_back();
      --unfinished;
      for (unsigned w : dependents[d]) {
        if (--deps[w] > 0) continue;
        if (w < stopAt) {
          ready.push(w);
        } else {
          done.push_back(w);
        }
      }
    }
  };
  // Mirrors of ready.size() and unfinished == 0, for threads that wait.
  std::atomic<unsigned> readyCount{static_cast<unsigned>(ready.size())};
  std::atomic<bool> allDone{n == 0};
  // Under mu: the first ready task, or n if there is none. Ready tasks
  // after a failed one (on top, then all of them) are dropped instead.
  auto takeReady = [&]() -> unsigned {
    if (!ready.empty() && ready.top() >= stopAt) {
      std::vector<unsigned> after;
      for (; !ready.empty(); ready.pop()) after.push_back(ready.top());
      for (unsigned d : after) finish(d);  // their dependents come later still
    }
    unsigned t = n;
    if (!ready.empty()) {
      t = ready.top();
      ready.pop();
    }
    readyCount.store(static_cast<unsigned>(ready.size()), std::memory_order_release);
    return t;
  };
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<unsigned> helpers{0};
  outer_.parallelFor(std::min(n, outer_.numThreads()), [&](unsigned) {
    tlsThread = ThreadNumber(caller, helpers);
    unsigned spins = 0;
    unsigned t = n;  // the task this thread runs next, if any
    for (;;) {
      if (t == n) {
        if (allDone.load(std::memory_order_acquire)) return;
        if (readyCount.load(std::memory_order_acquire) > 0) {
          std::lock_guard<std::mutex> lock(mu);
          t = takeReady();
          if (unfinished == 0) {  // it dropped the last ones
            allDone.store(true, std::memory_order_release);
            return;
          }
        }
        if (t == n) {
          if (helpOnce()) {
            spins = 0;
          } else {
            Pause(spins);
          }
          continue;
        }
      }
      spins = 0;
      const bool ok = task(t);
      std::lock_guard<std::mutex> lock(mu);
      if (!ok) stopAt = std::min(stopAt, t);  // the tasks after it will not start
      finish(t);
      // The next task without a second look at the lock: a chain of tasks
      // stays on one thread (and its data in that core's cache).
      t = takeReady();
      if (unfinished == 0) {
        allDone.store(true, std::memory_order_release);
        return;
      }
    }
  });
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
  job->runClaimed(tlsThread, numThreads());
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
