#include "absl/strings/str_cat.h"
#include "blis-openmp/blis.h"
#include "tools/bench/gemm_library.h"

namespace tfipu_bench {

GemmLibrary BlisGemm() {
  GemmLibrary lib;
  lib.name = absl::StrCat("BLIS ", bli_info_get_version_str(), " (OpenMP)");
  lib.set_threads = [](int n) { bli_thread_set_num_threads(n); };
  lib.gemm = [](int m, int n, int k, bool ta, bool tb, const float* a, const float* b, float* c) {
    float one = 1, zero = 0;
    // Row-major storage: the row stride is the stored row's length.
    bli_sgemm(ta ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, tb ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE,
              m, n, k, &one, const_cast<float*>(a), ta ? m : k, 1, const_cast<float*>(b),
              tb ? k : n, 1, &zero, c, n, 1);
  };
  return lib;
}

}  // namespace tfipu_bench
