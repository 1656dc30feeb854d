#include "third_party/dnnl/one_thread_sgemm.h"

#include <omp.h>

#include "oneapi/dnnl/dnnl.h"

namespace dnnl_one_thread {
namespace {

constexpr int64_t kMinCols = 16;
constexpr int64_t kMinMultiplyAdds = 32 * 1024;

// c = alpha op(a) op(b) + beta c on the calling thread alone (see Sgemm).
bool ScaledSgemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc) {
  if (m < 0 || n < 0 || k < 0) return false;
  // Stored rows: op(a) is [m,k], stored [m,k] or [k,m]; likewise b.
  if (lda < (transpose_a ? m : k) || ldb < (transpose_b ? k : n) || ldc < n) return false;
  if (m == 0 || n == 0) return true;
  if (c == nullptr || (k > 0 && (a == nullptr || b == nullptr))) return false;
  const int omp_threads = omp_get_max_threads();
  if (omp_threads != 1) omp_set_num_threads(1);
  const dnnl_status_t status = dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m,
                                          n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (omp_threads != 1) omp_set_num_threads(omp_threads);
  return status == dnnl_success;
}

// The block [row, row + rows) x [col, col + cols) of ScaledSgemm's c.
bool ScaledSgemmBlock(bool transpose_a, bool transpose_b, int64_t row, int64_t rows, int64_t col,
                      int64_t cols, int64_t k, float alpha, const float* a, int64_t lda,
                      const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (row < 0 || col < 0 || rows < 0 || cols < 0) return false;
  if (rows == 0 || cols == 0) return true;
  if (a == nullptr || b == nullptr || c == nullptr) return false;
  // Row `row` of op(a) starts `row` rows into a, or `row` columns into a
  // stored transposed; likewise column `col` of op(b).
  const float* a_block = a + (transpose_a ? row : row * lda);
  const float* b_block = b + (transpose_b ? col * ldb : col);
  return ScaledSgemm(transpose_a, transpose_b, rows, cols, k, alpha, a_block, lda, b_block, ldb,
                     beta, c + row * ldc + col, ldc);
}

}  // namespace

bool FasterThanEigen(int64_t m, int64_t n, int64_t k) {
  return n >= kMinCols && m * n * k >= kMinMultiplyAdds;
}

bool Sgemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
           const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  return ScaledSgemm(transpose_a, transpose_b, m, n, k, 1.f, a, lda, b, ldb, 0.f, c, ldc);
}

bool SgemmBlock(bool transpose_a, bool transpose_b, int64_t row, int64_t rows, int64_t col,
                int64_t cols, int64_t k, const float* a, int64_t lda, const float* b,
                int64_t ldb, float* c, int64_t ldc) {
  return ScaledSgemmBlock(transpose_a, transpose_b, row, rows, col, cols, k, 1.f, a, lda, b, ldb,
                          0.f, c, ldc);
}

bool SgemmBlockScaledAdd(bool transpose_a, bool transpose_b, int64_t row, int64_t rows,
                         int64_t col, int64_t cols, int64_t k, float alpha, const float* a,
                         int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  return ScaledSgemmBlock(transpose_a, transpose_b, row, rows, col, cols, k, alpha, a, lda, b,
                          ldb, 1.f, c, ldc);
}

}  // namespace dnnl_one_thread
