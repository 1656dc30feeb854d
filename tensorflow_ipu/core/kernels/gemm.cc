#include "tensorflow_ipu/core/kernels/gemm.h"

#include <omp.h>
#include <type_traits>

#include "Eigen/Core"
#include "oneapi/dnnl/dnnl.h"
#include "tensorflow_ipu/core/parallel_shards.h"

namespace tensorflow_ipu {
namespace {

using Eigen::Index;

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// From this many multiply-adds a product that Eigen computes is split over
// the pool's threads (oneDNN's products are not: see DnnlSgemm):
// waking a thread costs a few microseconds, a 2M multiply-add product about
// 20 (the MLP's 32x784x256 layer is 6.4M).
constexpr int64_t kSplitFlops = 2 * 1024 * 1024;
// Shard boundaries are multiples of this. Eigen's product kernels handle
// the output in register blocks counted from the start of the product (at
// most 3 AVX-512 float vectors, 48), and blocks of different widths add up
// their terms in different orders; aligned shards keep every element on the
// kernel it has in the whole product, so results are bit-identical for any
// number of threads.
constexpr int64_t kSplitGrain = 48;

// Which float products go to oneDNN (see UseDnnl): outputs at least this
// many columns wide, ...
constexpr int64_t kDnnlMinCols = 16;
// ... and of at least this many multiply-adds: below it oneDNN's fixed cost
// per call (about 0.4 us) exceeds Eigen's whole product (measured at one thread: 32x16x32, 16K, 0.43 us Eigen against 0.64 us;
// 32x32x32, 32K, 0.95 against 0.84).
constexpr int64_t kDnnlMinFlops = 32 * 1024;

// Whether oneDNN's dnnl_sgemm computes this float product rather than
// Eigen. The choice depends on the shape only, never on the thread count,
// so a product's bits do not either. Measured (tools/bench:gemm_compare,
// one thread, docs/PERFORMANCE.md): oneDNN is 20-45% faster than Eigen on
// the MLP's products, but slower on those whose output is 10 columns wide
// (32x128 . 128x10: 43 against 54 GFLOP/s), and on tiny products.
bool UseDnnl(int64_t m, int64_t n, int64_t k) {
  return n >= kDnnlMinCols && m * n * k >= kDnnlMinFlops;
}

// out = op(a) op(b) with oneDNN on the calling thread alone. Debian's
// oneDNN runs on OpenMP and would split the product over
// omp_get_max_threads() threads, with a blocking (and so a summation order)
// that depends on that count; one thread per product keeps the blocking
// fixed, and the session's threads run independent products instead. The
// setting is the calling thread's own (an OpenMP ICV) and is restored, so
// OpenMP code of the program (e.g. its own Eigen with -fopenmp) is not
// affected. Returns false if oneDNN refused the call.
bool DnnlSgemm(const float* a, int64_t a_cols, bool ta, const float* b, int64_t b_cols,
               bool tb, int64_t m, int64_t n, int64_t k, float* out) {
  const int omp_threads = omp_get_max_threads();
  if (omp_threads != 1) omp_set_num_threads(1);
  const dnnl_status_t status = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.f, a,
                                          a_cols, b, b_cols, 0.f, out, n);
  if (omp_threads != 1) omp_set_num_threads(omp_threads);
  return status == dnnl_success;
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
  if constexpr (std::is_same_v<T, float>) {
    if (UseDnnl(m, n, k) && DnnlSgemm(a, a_cols, ta, b, b_cols, tb, m, n, k, out)) return;
  }
  // The product of rows [r0, r0 + rows) and columns [c0, c0 + cols)
  // (transposes are views, not copies).
  auto block = [&](Index r0, Index rows, Index c0, Index cols) {
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
  };
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

template void Gemm<float>(const Eigen::ThreadPoolDevice&, const float*, int64_t, int64_t,
                          bool, const float*, int64_t, int64_t, bool, float*);
template void Gemm<double>(const Eigen::ThreadPoolDevice&, const double*, int64_t, int64_t,
                           bool, const double*, int64_t, int64_t, bool, double*);
template void Gemm<int32_t>(const Eigen::ThreadPoolDevice&, const int32_t*, int64_t,
                            int64_t, bool, const int32_t*, int64_t, int64_t, bool,
                            int32_t*);

}  // namespace tensorflow_ipu
