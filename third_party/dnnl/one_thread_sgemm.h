// oneDNN's single-precision matrix product on the calling thread alone, and
// the rule for when it beats Eigen's. Shared by the CPU kernels
// (tensorflow_ipu/core/kernels/gemm.cc) and the simulator's matrix products
// (poplar_sim/poplin/matmul_host.cc), so that both pick the same library for a
// shape.
//
//   if (dnnl_one_thread::FasterThanEigen(m, n, k) &&
//       dnnl_one_thread::Sgemm(false, true, m, n, k, a, k, b, k, out, n)) return;
//   ... Eigen's product ...
#ifndef THIRD_PARTY_DNNL_ONE_THREAD_SGEMM_H_
#define THIRD_PARTY_DNNL_ONE_THREAD_SGEMM_H_

#include <cstdint>

namespace dnnl_one_thread {

// Whether oneDNN's sgemm computes the float product [m,k] x [k,n] faster than
// Eigen at one thread: outputs at least 16 columns wide of at least 32K
// multiply-adds. Measured by tools/bench:gemm_compare (docs/PERFORMANCE.md):
// oneDNN is 20-45% faster on the benchmark MLP's products, slower on those
// with 10 output columns (43 against 54 GFLOP/s) and on tiny ones, where
// its fixed cost per call (about 0.4 us) exceeds Eigen's whole product
// (32x16x32: 0.43 us Eigen against 0.64; 32x32x32: 0.95 against 0.84). The
// answer depends on the shape only, never on a thread count, so neither do
// the bits of a product.
bool FasterThanEigen(int64_t m, int64_t n, int64_t k);

// c [m,n] = op(a) op(b), row-major, op(x) = x or its transpose; lda, ldb and
// ldc are the row strides of a, b and c as stored. Runs on the calling
// thread alone: Debian's oneDNN runs on OpenMP and would split the product
// over omp_get_max_threads() threads with a blocking (so a summation order)
// that depends on that count. The thread's OpenMP setting is restored
// after the call. Returns false, computing nothing, if a size is negative,
// a stride is shorter than its rows, a pointer of a non-empty operand is
// null, or oneDNN refused the call (the caller then computes the product
// itself).
bool Sgemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
           const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);

// The block of c with rows [row, row + rows) and columns [col, col + cols),
// computed as Sgemm computes it (the caller splitting a product over
// threads, one block each): each of its elements has the bits it has in
// the whole product, since oneDNN sums every element over k in one order
// whatever the block. a, b, c and the strides are those of the whole
// product; false as for Sgemm.
bool SgemmBlock(bool transpose_a, bool transpose_b, int64_t row, int64_t rows, int64_t col,
                int64_t cols, int64_t k, const float* a, int64_t lda, const float* b,
                int64_t ldb, float* c, int64_t ldc);

// c [m,n] += alpha op(a) op(b) for the block of rows [row, row + rows) and
// columns [col, col + cols), as SgemmBlock computes its product (the caller
// splitting it over threads, one block each: every element gets the same
// bits whatever the block). c must not overlap a or b. False as for Sgemm,
// with c unchanged.
bool SgemmBlockScaledAdd(bool transpose_a, bool transpose_b, int64_t row, int64_t rows,
                         int64_t col, int64_t cols, int64_t k, float alpha, const float* a,
                         int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);

}  // namespace dnnl_one_thread

#endif  // THIRD_PARTY_DNNL_ONE_THREAD_SGEMM_H_
