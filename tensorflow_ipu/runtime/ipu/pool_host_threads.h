// PoolHostThreads: lends a session's CPU thread pool to the IPU simulator,
// so that a cluster's large compute sets (a big matrix product) run on all
// the session's threads rather than only on the thread that runs the
// cluster op. The simulated results and cycles do not change.
//
//   PoolHostThreads threads(ctx->eigen_device());
//   compiled->Run(device, inputs, &outputs, &threads);
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_POOL_HOST_THREADS_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_POOL_HOST_THREADS_H_

#include <algorithm>
#include <functional>

#include "poplar_sim/host_threads.h"
#include "tensorflow_ipu/core/parallel_shards.h"

namespace tensorflow_ipu {

class PoolHostThreads : public poplar_sim::HostThreads {
 public:
  explicit PoolHostThreads(const Eigen::ThreadPoolDevice& device) : device_(device) {}
  unsigned numThreads() const override {
    return static_cast<unsigned>(std::max(1, device_.numThreads()));
  }
  // RunShards never waits for a busy pool: the cluster op itself runs on a
  // pool thread of the same pool.
  void parallelFor(unsigned n, const std::function<void(unsigned)>& fn) override {
    RunShards(device_, static_cast<int>(n), [&fn](int i) { fn(static_cast<unsigned>(i)); });
  }

 private:
  const Eigen::ThreadPoolDevice& device_;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_POOL_HOST_THREADS_H_
