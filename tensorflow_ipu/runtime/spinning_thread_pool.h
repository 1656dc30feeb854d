// SpinningThreadPool: the session's CPU workers. After each task a worker
// keeps polling for the next one for a while (spin_us) before it sleeps.
// A task scheduled while a worker polls goes straight to that worker's
// slot (one cache line), the others to a queue under a mutex.
//
// Why not Eigen's own pool: its workers poll only briefly, and waking a
// sleeping thread costs tens of microseconds on virtual machines (about 65
// round trip on the 2-core KVM machines the benchmarks run on). A training
// step splits each large product in two every 100 microseconds or so; with
// Eigen's pool the helper was asleep each time and the split gained
// nothing, with polling workers it runs the product in 0.55x the time.
//
//   SpinningThreadPool pool(/*num_threads=*/1, /*spin_us=*/500);
//   Eigen::ThreadPoolDevice device(&pool, 2);
#ifndef TENSORFLOW_IPU_RUNTIME_SPINNING_THREAD_POOL_H_
#define TENSORFLOW_IPU_RUNTIME_SPINNING_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "unsupported/Eigen/CXX11/ThreadPool"

namespace tensorflow_ipu {

class SpinningThreadPool : public Eigen::ThreadPoolInterface {
 public:
  // `num_threads` >= 1 workers, each polling for `spin_us` microseconds
  // after its last task before it sleeps.
  SpinningThreadPool(int num_threads, int spin_us);
  // Runs the tasks already scheduled, then joins the workers.
  ~SpinningThreadPool() override;
  SpinningThreadPool(const SpinningThreadPool&) = delete;
  SpinningThreadPool& operator=(const SpinningThreadPool&) = delete;

  // Hands `fn` to a polling worker's slot if one is free, else queues it
  // (waking a sleeping worker). Tasks run in no particular order.
  void Schedule(std::function<void()> fn) override;
  int NumThreads() const override { return static_cast<int>(workers_.size()); }
  int CurrentThreadId() const override;

 private:
  // A worker's hand-over slot, on a cache line of its own. A split kernel
  // hands its helper a shard every few microseconds of a training step.
  // Through the queue the caller started its own shard 0.43 us after the
  // split began and the helper 0.87 (the mutex, the deque and the count
  // each a line the other core held); through the slot 0.16 and 0.44
  // (train_mlp's split products, medians; docs/PERFORMANCE.md).
  struct alignas(64) Slot {
    // kIdle: the worker polls and takes a task here; kFilling: a Schedule
    // is writing `task`; kFull: `task` is there; kBusy: the worker runs a
    // task or sleeps, and Schedule queues instead.
    enum State { kIdle, kFilling, kFull, kBusy };
    std::atomic<int> state{kBusy};
    std::function<void()> task;
  };

  void WorkerLoop(int id);
  // Polls until `slot` is filled, a task is queued, stopping is requested,
  // or spin_us pass.
  void Spin(const Slot& slot) const;
  // The next task of worker `slot`: from the slot, else from the queue
  // (sleeping while both are empty); an empty function when stopping with
  // nothing left to run.
  std::function<void()> NextTask(Slot& slot);

  const int spin_us_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  int sleeping_ = 0;                         // guarded by mu_
  bool stop_ = false;                        // guarded by mu_
  std::atomic<int> queued_{0};               // queue_.size(), for polling
  std::atomic<bool> stopping_{false};
  std::unique_ptr<Slot[]> slots_;  // one per worker
  std::vector<std::thread> workers_;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_SPINNING_THREAD_POOL_H_
