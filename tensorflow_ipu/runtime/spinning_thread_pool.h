// SpinningThreadPool: the session's CPU workers. After each task a worker
// keeps polling for the next one for a while (spin_us) before it sleeps.
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

  void Schedule(std::function<void()> fn) override;
  int NumThreads() const override { return static_cast<int>(workers_.size()); }
  int CurrentThreadId() const override;

 private:
  void WorkerLoop(int id);
  // Polls until a task is queued, stopping is requested, or spin_us pass.
  void Spin() const;

  const int spin_us_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  int sleeping_ = 0;                         // guarded by mu_
  bool stop_ = false;                        // guarded by mu_
  std::atomic<int> queued_{0};               // queue_.size(), for polling
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_SPINNING_THREAD_POOL_H_
