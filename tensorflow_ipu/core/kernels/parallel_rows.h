// ParallelRows: a loop over independent items split over the session's
// threads when the work is large, through RunRanges (parallel_shards.h),
// which never waits for a pool thread to become free, so it is safe in a
// kernel running on one of the pool's own threads (Eigen's parallelFor
// waits on a barrier for tasks it queued on that pool).
//
//   ParallelRows(ctx, images, per_image_cost, [&](int64_t b0, int64_t b1) {
//     for (int64_t b = b0; b < b1; ++b) DoImage(b);
//   });
#ifndef TENSORFLOW_IPU_CORE_KERNELS_PARALLEL_ROWS_H_
#define TENSORFLOW_IPU_CORE_KERNELS_PARALLEL_ROWS_H_

#include <cstdint>
#include <functional>

#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/parallel_shards.h"

namespace tensorflow_ipu {

// Below this many units of work (elements touched) a loop stays on the
// calling thread: handing it to the pool costs more.
inline constexpr int64_t kParallelRowsThreshold = 256 * 1024;

// Calls fn(begin, end) over contiguous ranges covering [0, n), each exactly
// once; the ranges depend on the number of threads, so fn must give the
// same result however [0, n) is cut (items independent of each other).
inline void ParallelRows(OpKernelContext* ctx, int64_t n, int64_t cost_per_item,
                         const std::function<void(int64_t, int64_t)>& fn) {
  const Eigen::ThreadPoolDevice& device = ctx->eigen_device();
  if (n <= 1 || n * cost_per_item < kParallelRowsThreshold || device.numThreads() < 2) {
    fn(0, n);
    return;
  }
  RunRanges(device, n, 1, device.numThreads(), fn);
}

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_PARALLEL_ROWS_H_
