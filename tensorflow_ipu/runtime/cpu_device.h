// CpuDevice: the host's threads, shared by the executor (independent nodes
// in parallel) and by kernels (Eigen's intra-op parallelism). Of
// num_threads(), one is the caller's: the pool has num_threads() - 1
// workers (at least one), and work is split for num_threads().
#ifndef TENSORFLOW_IPU_RUNTIME_CPU_DEVICE_H_
#define TENSORFLOW_IPU_RUNTIME_CPU_DEVICE_H_

#include <functional>
#include <memory>

#include "unsupported/Eigen/CXX11/Tensor"
#include "unsupported/Eigen/CXX11/ThreadPool"
#include "tensorflow_ipu/runtime/spinning_thread_pool.h"

namespace tensorflow_ipu {

class CpuDevice {
 public:
  // `num_threads` <= 0 means one per core.
  explicit CpuDevice(int num_threads);
  ~CpuDevice();

  int num_threads() const { return num_threads_; }
  void Schedule(std::function<void()> fn) { pool_->Schedule(std::move(fn)); }
  const Eigen::ThreadPoolDevice& eigen_device() const { return *eigen_device_; }

 private:
  int num_threads_;
  std::unique_ptr<SpinningThreadPool> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> eigen_device_;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_CPU_DEVICE_H_
