// HostThreads: host threads on which the simulator may run one compute
// set's host work in parallel (for example the halves of a large matrix
// product). They change how fast the simulation runs on the host, never
// what it computes or the simulated cycles it reports.
//
//   poplar_sim::SpawnedHostThreads threads(2);
//   engine.setHostThreads(&threads);   // not owned; nullptr: one thread
//   engine.run(0);
//
// A program with a thread pool of its own (a TensorFlow-style session)
// implements HostThreads over its pool instead.
#ifndef POPLAR_SIM_HOST_THREADS_H_
#define POPLAR_SIM_HOST_THREADS_H_

#include <functional>

namespace poplar_sim {

class HostThreads {
 public:
  virtual ~HostThreads() = default;
  // How many shards of work are worth making: the threads that can run at
  // once, the caller's included.
  virtual unsigned numThreads() const = 0;
  // Runs fn(0) ... fn(n - 1), possibly concurrently, the caller's thread
  // taking part; returns when all have finished.
  virtual void parallelFor(unsigned n,
                           const std::function<void(unsigned)>& fn) = 0;
};

// Starts a std::thread for each shard but the first, per call. For tests
// and programs without a pool: the start-up costs tens of microseconds, so
// a caller should split only work much larger than that.
class SpawnedHostThreads : public HostThreads {
 public:
  explicit SpawnedHostThreads(unsigned numThreads)
      : numThreads_(numThreads == 0 ? 1 : numThreads) {}
  unsigned numThreads() const override { return numThreads_; }
  void parallelFor(unsigned n,
                   const std::function<void(unsigned)>& fn) override;

 private:
  unsigned numThreads_;
};

// Splits [0, extent) into at most `threads` contiguous ranges whose
// boundaries are the multiples of `grain` nearest to an even split, and calls
// fn(begin, end) for each through `threads` (one call, on the caller, when
// `threads` is null or has one thread, or extent < 2 * grain).
void parallelRanges(HostThreads* threads, size_t extent,
                    const std::function<void(size_t, size_t)>& fn,
                    size_t grain = 1);

}  // namespace poplar_sim

#endif  // POPLAR_SIM_HOST_THREADS_H_
