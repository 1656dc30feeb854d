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
  slots_ = std::make_unique<Slot[]>(n);
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
  if (!fn) return;  // nothing to run (an empty task would read as "stop")
  for (size_t i = 0; i < workers_.size(); ++i) {
    Slot& slot = slots_[i];
    int idle = Slot::kIdle;
    if (slot.state.load(std::memory_order_relaxed) == Slot::kIdle &&
        slot.state.compare_exchange_strong(idle, Slot::kFilling, std::memory_order_acquire)) {
      slot.task = std::move(fn);
      slot.state.store(Slot::kFull, std::memory_order_release);
      return;
    }
  }
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

void SpinningThreadPool::Spin(const Slot& slot) const {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::microseconds(spin_us_);
  for (int i = 0;; ++i) {
    if (slot.state.load(std::memory_order_acquire) != Slot::kIdle ||
        queued_.load(std::memory_order_acquire) > 0 ||
        stopping_.load(std::memory_order_acquire)) {
      return;
    }
    CpuRelax();
    if ((i & 63) == 63 && Clock::now() >= deadline) return;
  }
}

std::function<void()> SpinningThreadPool::NextTask(Slot& slot) {
  slot.state.store(Slot::kIdle, std::memory_order_release);
  Spin(slot);
  // Stop taking tasks in the slot. If a Schedule claimed it first, its task
  // is on the way.
  int idle = Slot::kIdle;
  if (!slot.state.compare_exchange_strong(idle, Slot::kBusy, std::memory_order_acq_rel)) {
    while (slot.state.load(std::memory_order_acquire) != Slot::kFull) CpuRelax();
    std::function<void()> task = std::move(slot.task);
    slot.task = nullptr;
    slot.state.store(Slot::kBusy, std::memory_order_relaxed);
    return task;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (queue_.empty() && !stop_) {
    ++sleeping_;
    wake_.wait(lock, [this] { return !queue_.empty() || stop_; });
    --sleeping_;
  }
  if (queue_.empty()) return nullptr;  // stopping, and nothing left to run
  std::function<void()> task = std::move(queue_.front());
  queue_.pop_front();
  queued_.fetch_sub(1, std::memory_order_relaxed);
  return task;
}

void SpinningThreadPool::WorkerLoop(int id) {
  current_pool = this;
  current_id = id;
  for (;;) {
    std::function<void()> task = NextTask(slots_[id]);
    if (!task) return;
    task();
  }
}

}  // namespace tensorflow_ipu
