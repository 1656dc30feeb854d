#include "tensorflow_ipu/core/kernels/gemm.h"

#include <atomic>
#include <functional>
#include <memory>
#include <type_traits>

#include "Eigen/Core"
#include "tensorflow_ipu/core/kernels/wrapping_arithmetic.h"
#include "tensorflow_ipu/core/parallel_shards.h"
#include "third_party/dnnl/one_thread_sgemm.h"

namespace tensorflow_ipu {
namespace {

using Eigen::Index;

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// From this many multiply-adds a product is split over the pool's threads:
// handing work to a polling thread costs well under a microsecond, a 1M
// multiply-add product about 13 on one core (the MLP's 32x256x128 layer;
// its 32x784x256 layer is 6.4M). Splitting the 1M products pays only when
// every product through a layer's weights splits them the same way (see
// SplitsByDepth): train_mlp's CPU executor +4%.
constexpr int64_t kSplitFlops = 1024 * 1024;
// Shard boundaries are multiples of this. Eigen's product kernels handle
// the output in register blocks counted from the start of the product (at
// most 3 AVX-512 float vectors, 48), and blocks of different widths add up
// their terms in different orders; aligned shards keep every element on the
// kernel it has in the whole product, so results are bit-identical for any
// number of threads.
constexpr int64_t kSplitGrain = 48;

// Runs block(r0, rows, c0, cols) over the [m, n] output: whole on the
// calling thread for small products or one thread, else split by rows (tall
// outputs) or columns (wide ones) at multiples of kSplitGrain, one range
// per pool thread.
void ForEachBlock(const Eigen::ThreadPoolDevice& device, Index m, Index n, Index k,
                  const std::function<void(Index, Index, Index, Index)>& block) {
  const int threads = device.numThreads();
  if (m * n * k < kSplitFlops || threads < 2) {
    block(0, m, 0, n);
    return;
  }
  const bool by_rows = m >= n;
  RunRanges(device, by_rows ? m : n, kSplitGrain, threads, [&](int64_t begin, int64_t end) {
    if (by_rows) {
      block(begin, end - begin, 0, n);
    } else {
      block(0, m, begin, end - begin);
    }
  });
}

// A product of few rows and a deep sum (a batch through a layer's
// weights: 32x784x256) is split by its depth into two halves at a multiple
// of kSplitGrain, whatever the number of threads, so that the sums (and the
// bits) do not depend on it; the second half's product is added to the
// first's. Each half reads the rows of the weights that the same thread
// wrote in the weight update before, which GemmScaledAdd splits by rows at
// the same boundary (part i on the thread that takes shard i): split by
// output columns instead, each core read half of every row of the weights
// from the other core's cache. The simulated IPU's products split so too
// (poplar_sim/poplin/matmul_host.cc).
// Not when b is transposed (an input gradient, dx = dy w^T): the depth then
// runs along the weights' columns, and the output columns are the weights'
// rows, so ForEachBlock's split by columns (at the same boundary) is the
// one that keeps each thread on its own rows.
bool SplitsByDepth(Index m, Index n, Index k, bool tb) {
  return !tb && m < kSplitGrain && k >= 2 * kSplitGrain && m * n * k >= kSplitFlops &&
         dnnl_one_thread::FasterThanEigen(m, n, k);
}

// out = op(a) op(b) as two oneDNN products over the halves of the depth;
// false if oneDNN refused one.
bool ProductByDepth(const Eigen::ThreadPoolDevice& device, const float* a, int64_t a_cols,
                    bool ta, const float* b, int64_t b_cols, bool tb, Index m, Index n,
                    Index k, float* out) {
  const Index half = (k + kSplitGrain) / (2 * kSplitGrain) * kSplitGrain;
  // Not zeroed: the product overwrites it (zeroing it here would make the
  // other thread fetch its lines from this core's cache before writing).
  std::unique_ptr<float[]> second(new float[m * n]);
  std::atomic<bool> ok{true};
  RunShards(device, 2, [&](int part) {
    const Index k0 = part == 0 ? 0 : half, depth = part == 0 ? half : k - half;
    // Columns [k0, k0 + depth) of op(a), rows [k0, k0 + depth) of op(b).
    const float* a_part = a + (ta ? k0 * a_cols : k0);
    const float* b_part = b + (tb ? k0 : k0 * b_cols);
    if (!dnnl_one_thread::Sgemm(ta, tb, m, n, depth, a_part, a_cols, b_part, b_cols,
                                part == 0 ? out : second.get(), n)) {
      ok = false;
    }
  });
  if (!ok) return false;
  for (Index i = 0; i < m * n; ++i) out[i] += second[i];
  return true;
}

}  // namespace

template <typename T>
void Gemm(const Eigen::ThreadPoolDevice& device, const T* a, int64_t a_rows,
          int64_t a_cols, bool ta, const T* b, int64_t b_rows, int64_t b_cols,
          bool tb, T* out) {
  Eigen::Map<const RowMajor<T>> am(a, a_rows, a_cols);
  Eigen::Map<const RowMajor<T>> bm(b, b_rows, b_cols);
  const Index m = ta ? a_cols : a_rows, k = ta ? a_rows : a_cols;
  const Index n = tb ? b_rows : b_cols;
  Eigen::Map<RowMajor<T>> om(out, m, n);
  if (m * n == 0) return;
  if (k == 0) {
    om.setZero();
    return;
  }
  // Float products of the shapes oneDNN computes faster go to it, each
  // block on its calling thread (third_party/dnnl/one_thread_sgemm.h); the
  // rest to Eigen. A oneDNN block's elements have the bits they have in the
  // whole product (checked by gemm_test for row and column blocks).
  bool dnnl = false;
  if constexpr (std::is_same_v<T, float>) {
    dnnl = dnnl_one_thread::FasterThanEigen(m, n, k);
    if (SplitsByDepth(m, n, k, tb) && ProductByDepth(device, a, a_cols, ta, b, b_cols, tb, m, n, k,
                                                 out)) {
      return;
    }
  }
  if constexpr (wrapping::kWraps<T>) {
    // Integer products wrap round on overflow, as in TensorFlow; Eigen's
    // kernels would overflow (undefined in C++). The sums are exact modulo
    // 2^bits, so the order, and the split, cannot change a value.
    ForEachBlock(device, m, n, k, [&](Index r0, Index rows, Index c0, Index cols) {
      for (Index r = r0; r < r0 + rows; ++r) {
        for (Index c = c0; c < c0 + cols; ++c) {
          T sum = 0;
          for (Index q = 0; q < k; ++q) {
            const T x = ta ? am(q, r) : am(r, q), y = tb ? bm(c, q) : bm(q, c);
            sum = wrapping::Add(sum, wrapping::Multiply(x, y));
          }
          om(r, c) = sum;
        }
      }
    });
    return;
  }
  // The product of rows [r0, r0 + rows) and columns [c0, c0 + cols)
  // (transposes are views, not copies).
  ForEachBlock(device, m, n, k, [&](Index r0, Index rows, Index c0, Index cols) {
    if constexpr (std::is_same_v<T, float>) {
      if (dnnl && dnnl_one_thread::SgemmBlock(ta, tb, r0, rows, c0, cols, k, a, a_cols, b,
                                              b_cols, out, n)) {
        return;
      }
    }
    auto o = om.block(r0, c0, rows, cols);
    if (!ta && !tb) {
      o.noalias() = am.middleRows(r0, rows) * bm.middleCols(c0, cols);
    } else if (ta && !tb) {
      o.noalias() = am.transpose().middleRows(r0, rows) * bm.middleCols(c0, cols);
    } else if (!ta && tb) {
      o.noalias() = am.middleRows(r0, rows) * bm.transpose().middleCols(c0, cols);
    } else {
      o.noalias() = am.transpose().middleRows(r0, rows) * bm.transpose().middleCols(c0, cols);
    }
  });
}

void GemmScaledAdd(const Eigen::ThreadPoolDevice& device, const float* a, int64_t a_rows,
                   int64_t a_cols, bool ta, const float* b, int64_t b_rows, int64_t b_cols,
                   bool tb, float alpha, float* out) {
  Eigen::Map<const RowMajor<float>> am(a, a_rows, a_cols);
  Eigen::Map<const RowMajor<float>> bm(b, b_rows, b_cols);
  const Index m = ta ? a_cols : a_rows, k = ta ? a_rows : a_cols;
  const Index n = tb ? b_rows : b_cols;
  if (m * n == 0 || k == 0) return;
  Eigen::Map<RowMajor<float>> om(out, m, n);
  const bool dnnl = dnnl_one_thread::FasterThanEigen(m, n, k);
  ForEachBlock(device, m, n, k, [&](Index r0, Index rows, Index c0, Index cols) {
    if (dnnl && dnnl_one_thread::SgemmBlockScaledAdd(ta, tb, r0, rows, c0, cols, k, alpha, a,
                                                     a_cols, b, b_cols, out, n)) {
      return;
    }
    auto o = om.block(r0, c0, rows, cols);
    if (!ta && !tb) {
      o.noalias() += alpha * (am.middleRows(r0, rows) * bm.middleCols(c0, cols));
    } else if (ta && !tb) {
      o.noalias() += alpha * (am.transpose().middleRows(r0, rows) * bm.middleCols(c0, cols));
    } else if (!ta && tb) {
      o.noalias() += alpha * (am.middleRows(r0, rows) * bm.transpose().middleCols(c0, cols));
    } else {
      o.noalias() +=
          alpha * (am.transpose().middleRows(r0, rows) * bm.transpose().middleCols(c0, cols));
    }
  });
}

template void Gemm<float>(const Eigen::ThreadPoolDevice&, const float*, int64_t, int64_t,
                          bool, const float*, int64_t, int64_t, bool, float*);
template void Gemm<double>(const Eigen::ThreadPoolDevice&, const double*, int64_t, int64_t,
                           bool, const double*, int64_t, int64_t, bool, double*);
template void Gemm<int32_t>(const Eigen::ThreadPoolDevice&, const int32_t*, int64_t,
                            int64_t, bool, const int32_t*, int64_t, int64_t, bool,
                            int32_t*);

}  // namespace tensorflow_ipu
