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
  // From a lane: runs fn(0) ... fn(n - 1) on the calling thread and on any
  // thread whose lanes are done.
  void parallelFor(unsigned n, const std::function<void(unsigned)>& fn) override;

 private:
  struct Job {
    Job(const std::function<void(unsigned)>* f, unsigned count) : fn(f), n(count) {}
    // Runs parts until none is left to claim.
    void runClaimed();
    const std::function<void(unsigned)>* fn;
    const unsigned n;
    std::atomic<unsigned> next{0};
    std::atomic<unsigned> done{0};
  };
  // Helps the running lanes' jobs until every lane has finished.
  void help();

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
