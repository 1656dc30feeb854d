#include "tensorflow_ipu/runtime/spinning_thread_pool.h"

#include <chrono>
#include <utility>

namespace tensorflow_ipu {
namespace {

// The pool a worker thread belongs to, and its index there.
thread_local const SpinningThreadPool* current_pool = nullptr;
thread_local int current_id = -1;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

SpinningThreadPool::SpinningThreadPool(int num_threads, int spin_us)
    : spin_us_(spin_us) {
  const int n = num_threads < 1 ? 1 : num_threads;
  workers_.reserve(n);
  for (int i = 0; i < n; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

SpinningThreadPool::~SpinningThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stopping_.store(true, std::memory_order_release);
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void SpinningThreadPool::Schedule(std::function<void()> fn) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
    queued_.fetch_add(1, std::memory_order_release);
    wake = sleeping_ > 0;
  }
  if (wake) wake_.notify_one();
}

int SpinningThreadPool::CurrentThreadId() const {
  return current_pool == this ? current_id : -1;
}

void SpinningThreadPool::Spin() const {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::microseconds(spin_us_);
  for (int i = 0;; ++i) {
    if (queued_.load(std::memory_order_acquire) > 0 ||
        stopping_.load(std::memory_order_acquire)) {
      return;
    }
    CpuRelax();
    if ((i & 63) == 63 && Clock::now() >= deadline) return;
  }
}

void SpinningThreadPool::WorkerLoop(int id) {
  current_pool = this;
  current_id = id;
  for (;;) {
    Spin();
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (queue_.empty() && !stop_) {
        ++sleeping_;
        wake_.wait(lock, [this] { return !queue_.empty() || stop_; });
        --sleeping_;
      }
      if (queue_.empty()) return;  // stopping, and nothing left to run
      task = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    task();
  }
}

}  // namespace tensorflow_ipu
