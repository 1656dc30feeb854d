// Row-wise softmax arithmetic shared by the Softmax/LogSoftmax and the
// cross-entropy kernels. Rows are computed in float for half inputs (and in
// the input type otherwise), shifted by their maximum for stability.
#ifndef TENSORFLOW_IPU_CORE_KERNELS_SOFTMAX_OP_H_
#define TENSORFLOW_IPU_CORE_KERNELS_SOFTMAX_OP_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <type_traits>

#include "Eigen/Core"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/parallel_shards.h"
#include "tensorflow_ipu/core/types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {
namespace softmax_internal {

// The type rows are computed in.
template <typename T>
using ComputeType = std::conditional_t<std::is_same_v<T, half>, float, T>;

template <typename T>
using RowMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstRowMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Runs fn(first_row, last_row) over [0, rows), on the session's thread pool
// when the work is large enough to pay for it.
inline void ForEachRowRange(OpKernelContext* ctx, int64_t rows, int64_t cols,
                            const std::function<void(int64_t, int64_t)>& fn) {
  constexpr int64_t kInlineElements = 1 << 14;
  if (rows * cols < kInlineElements || rows == 1) {
    fn(0, rows);
    return;
  }
  // Not Eigen's parallelFor, which may wait forever for its tasks when
  // called on a pool thread (core/parallel_shards.h).
  const int64_t grain = std::max<int64_t>(1, kInlineElements / std::max<int64_t>(cols, 1));
  RunRanges(ctx->eigen_device(), rows, grain, ctx->eigen_device().numThreads(), fn);
}

}  // namespace softmax_internal
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_SOFTMAX_OP_H_
