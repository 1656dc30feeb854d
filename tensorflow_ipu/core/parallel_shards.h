// RunShards: runs a few shards of one kernel's work on the calling thread
// and on whichever pool threads are free.
//
//   RunShards(ctx->eigen_device(), 2, [&](int s) { ProductOfHalf(s); });
//
// The caller never waits for a pool thread to become free: it claims and
// runs every shard nobody else has started, and then waits only for shards
// already running elsewhere. So it is safe from a pool thread when every
// other pool thread is busy or blocked (a barrier that waits for queued
// tasks would deadlock there: the executor and the kernels share one pool).
#ifndef TENSORFLOW_IPU_CORE_PARALLEL_SHARDS_H_
#define TENSORFLOW_IPU_CORE_PARALLEL_SHARDS_H_

#include <cstdint>
#include <functional>

#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {

// Runs fn(0) ... fn(num_shards - 1), each exactly once, and returns when all
// have finished. Uses at most device.numThreads() - 1 pool threads.
void RunShards(const Eigen::ThreadPoolDevice& device, int num_shards,
               const std::function<void(int)>& fn);

// Splits [0, extent) into at most `max_shards` contiguous ranges (no more
// than extent / grain) whose inner boundaries are the multiples of `grain`
// nearest an even split, and runs fn(begin, end) for each with RunShards.
// One range, [0, extent), runs on the calling thread.
void RunRanges(const Eigen::ThreadPoolDevice& device, int64_t extent, int64_t grain,
               int max_shards, const std::function<void(int64_t, int64_t)>& fn);

// dst = expr, with Eigen's parallel evaluation on the device's pool, unless
// the calling thread is one of that pool's workers: Eigen's evaluation then
// waits for tasks queued on the pool it occupies, which may never run (with
// one worker they never do). On a worker it evaluates on the calling thread.
template <typename Dst, typename Expr>
void EvaluateOnPool(const Eigen::ThreadPoolDevice& device, Dst&& dst, const Expr& expr) {
  if (device.currentThreadId() >= 0) {
    dst = expr;
  } else {
    dst.device(device) = expr;
  }
}

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_PARALLEL_SHARDS_H_
