// The CPU kernels' matrix product: MatMul's, and the convolutions' (im2col
// followed by a product), so that both pick the same GEMM library (oneDNN
// or Eigen) and stay bit-identical for any thread count.
//
//   // out [m, n] = a [m, k] * b [n, k]^T, all row-major
//   Gemm<float>(ctx->eigen_device(), a, m, k, false, b, n, k, true, out);
#ifndef TENSORFLOW_IPU_CORE_KERNELS_GEMM_H_
#define TENSORFLOW_IPU_CORE_KERNELS_GEMM_H_

#include <cstdint>

#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {

// out = op(a) * op(b), where a is a dense row-major [a_rows, a_cols] matrix
// and op(a) is a or its transpose (ta), and likewise b; out is dense
// row-major [rows of op(a), cols of op(b)], and op(a)'s columns must equal
// op(b)'s rows (the caller checks). An inner dimension of 0 gives zeros.
//
// Float products whose output is at least 16 columns wide (and not tiny) are
// computed by oneDNN's dnnl_sgemm, the others by Eigen; the choice depends on
// the shape only (third_party/dnnl/one_thread_sgemm.h, measured by
// tools/bench:gemm_compare, docs/PERFORMANCE.md).
//
// Products of 1M multiply-adds or more are split into blocks of output rows
// (or columns, for wide outputs) whose boundaries are multiples of 48, one
// per pool thread, each computed by one library call on one thread; a
// batch of few rows through weights that are not transposed is split by
// its depth instead, into the same two halves whatever the number of
// threads (gemm.cc), so that every product through a layer's weights gives
// each thread the same rows of them. In a block, every output element is
// computed by the same kernel, in the same order, as in the unsplit
// product (Eigen's register blocks are counted from the product's start, at
// most 48 wide; oneDNN's single-threaded sgemm sums each element over k
// the same way whatever the block), so results do not depend on the number
// of threads (gemm_test).
//
// Defined for float, double and int32_t (half callers convert to float).
template <typename T>
void Gemm(const Eigen::ThreadPoolDevice& device, const T* a, int64_t a_rows,
          int64_t a_cols, bool ta, const T* b, int64_t b_rows, int64_t b_cols,
          bool tb, T* out);

// out += alpha * op(a) * op(b) for float matrices laid out as for Gemm: a
// gradient-descent step taken inside the product of its gradient (alpha =
// -learning rate), without the gradient's own buffer. The same library
// choice and the same split over the pool as Gemm, so the bits do not
// depend on the number of threads; they may differ from Gemm followed by
// the addition in the last place, since the libraries add the scaled sum
// to out their own way. out must not overlap a or b.
void GemmScaledAdd(const Eigen::ThreadPoolDevice& device, const float* a, int64_t a_rows,
                   int64_t a_cols, bool ta, const float* b, int64_t b_rows, int64_t b_cols,
                   bool tb, float alpha, float* out);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_GEMM_H_
