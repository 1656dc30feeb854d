#include "third_party/dnnl/one_thread_sgemm.h"

#include <omp.h>

#include "oneapi/dnnl/dnnl.h"

namespace dnnl_one_thread {
namespace {

constexpr int64_t kMinCols = 16;
constexpr int64_t kMinMultiplyAdds = 32 * 1024;

}  // namespace

bool FasterThanEigen(int64_t m, int64_t n, int64_t k) {
  return n >= kMinCols && m * n * k >= kMinMultiplyAdds;
}

bool Sgemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
           const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  const int omp_threads = omp_get_max_threads();
  if (omp_threads != 1) omp_set_num_threads(1);
  const dnnl_status_t status = dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m,
                                          n, k, 1.f, a, lda, b, ldb, 0.f, c, ldc);
  if (omp_threads != 1) omp_set_num_threads(omp_threads);
  return status == dnnl_success;
}

}  // namespace dnnl_one_thread
