#include "tensorflow_ipu/runtime/cpu_device.h"

#include <algorithm>
#include <thread>

namespace tensorflow_ipu {
namespace {

// How long an idle worker polls for work before it sleeps: longer than the
// gaps between the split kernels of a training step (about 100 us), so the
// helper is awake for each; an idle session stops polling within 0.5 ms.
constexpr int kSpinMicros = 500;

}  // namespace

CpuDevice::CpuDevice(int num_threads) {
  if (num_threads <= 0) {
    num_threads = static_cast<int>(std::thread::hardware_concurrency());
  }
  num_threads_ = num_threads < 1 ? 1 : num_threads;
  // The thread that calls Session::Run works too (it runs the executor's
  // first ready nodes and one shard of every split kernel), so the pool has
  // one worker fewer than the session's threads. One worker more would spin
  // on the cores the caller needs: measured on 2 cores, a product split over
  // a 2-worker pool plus the caller ran slower than unsplit, over a
  // 1-worker pool 1.7x faster.
  pool_ = std::make_unique<SpinningThreadPool>(std::max(1, num_threads_ - 1), kSpinMicros);
  eigen_device_ =
      std::make_unique<Eigen::ThreadPoolDevice>(pool_.get(), num_threads_);
}

CpuDevice::~CpuDevice() = default;

}  // namespace tensorflow_ipu
