// LaneThreads: runs independent lanes of work (an engine's replicas, or the
// IPUs of a lane group) on an engine's host threads, and lends a thread
// whose lanes are done to the lanes still running: their parallelFor calls
// (a large matrix product split in parts) are shared with it. Without this a
// thread that finished a short lane would idle while a long one splits its
// products for nobody. Internal to the engine.
//
//   LaneThreads lanes(*engineThreads);
//   lanes.run(n, [&](unsigned l) { ... work that may call lanes.parallelFor ... });
#ifndef POPLAR_SIM_LANE_THREADS_H_
#define POPLAR_SIM_LANE_THREADS_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "poplar_sim/host_threads.h"

namespace poplar_sim {
namespace internal {

class LaneThreads : public HostThreads {
 public:
  explicit LaneThreads(HostThreads& outer) : outer_(outer) {}
  LaneThreads(const LaneThreads&) = delete;
  LaneThreads& operator=(const LaneThreads&) = delete;

  // As many as the outer threads: work is split the same way (and so gives
  // the same values) whoever ends up running the parts.
  unsigned numThreads() const override { return outer_.numThreads(); }
  // Runs lane(0) ... lane(n - 1), each whole on one thread, the caller's
  // taking part; returns when all have finished. Not reentrant.
  void run(unsigned n, const std::function<void(unsigned)>& lane);
  // Runs the tasks 0 ... n - 1 of a dependency graph (n = deps.size()):
  // task t once the deps[t] tasks it waits for have finished;
  // dependents[t] lists the tasks that wait for t, each later than t. A
  // free thread takes the first ready task in index order; a thread with
  // none ready helps the running tasks' parallelFor calls. A task returning
  // false stops the tasks after it from starting (as a program stops at its
  // first error); those before it still run. Returns when none is left
  // running. Not reentrant, nor to be mixed with run().
  void runGraph(const std::vector<std::vector<unsigned>>& dependents, std::vector<unsigned> deps,
                const std::function<bool(unsigned)>& task);
  // From a lane or task: runs fn(0) ... fn(n - 1) on the calling thread and on any
  // thread whose lanes are done (or that has no task ready).
  void parallelFor(unsigned n, const std::function<void(unsigned)>& fn) override;

 private:
  // A parallelFor's parts. Part i goes first to the i-th thread (counted
  // mod the threads): the parts of a split product and of the element-wise
  // ops after it over the same ranges then stay on the core whose cache
  // holds their rows, whichever thread posted them (moving a core's
  // freshly written lines to the other costs more than the work on them on
  // the benchmark machines). A thread takes the others' parts only when
  // its own are done.
  struct Job {
    Job(const std::function<void(unsigned)>* f, unsigned count)
        : fn(f), n(count), claimed(new std::atomic<bool>[count]) {
      for (unsigned i = 0; i < n; ++i) claimed[i].store(false, std::memory_order_relaxed);
    }
    // Runs this thread's parts, then any left unclaimed.
    void runClaimed(unsigned thread, unsigned numThreads);
    bool claim(unsigned i) {
      return !claimed[i].load(std::memory_order_relaxed) &&
             !claimed[i].exchange(true, std::memory_order_acq_rel);
    }
    const std::function<void(unsigned)>* fn;
    const unsigned n;
    std::unique_ptr<std::atomic<bool>[]> claimed;
    std::atomic<unsigned> unclaimed{n};
    std::atomic<unsigned> done{0};
  };
  // Helps the running lanes' jobs until every lane has finished.
  void help();
  // Runs the parts left of one posted job, if there is one; false if none.
  bool helpOnce();

  HostThreads& outer_;
  std::atomic<unsigned> nextLane_{0};
  std::atomic<unsigned> lanesLeft_{0};
  // How many jobs are posted: helpers look at jobs_ (under mu_) only when
  // there are some. (std::mutex: taken once per job, it needs none of
  // absl::Mutex's deadlock bookkeeping.)
  std::atomic<unsigned> posted_{0};
  std::mutex mu_;
  std::vector<std::shared_ptr<Job>> jobs_;  // guarded by mu_
};

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_LANE_THREADS_H_
