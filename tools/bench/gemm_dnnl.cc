#include <omp.h>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.h"
#include "tools/bench/gemm_library.h"

namespace tfipu_bench {

GemmLibrary DnnlGemm() {
  GemmLibrary lib;
  const dnnl_version_t* v = dnnl_version();
  lib.name = absl::StrCat("oneDNN ", v->major, ".", v->minor, ".", v->patch, " (OpenMP)");
  // oneDNN's CPU engine threads with the OpenMP runtime's count.
  lib.set_threads = [](int n) { omp_set_num_threads(n); };
  lib.gemm = [](int m, int n, int k, bool ta, bool tb, const float* a, const float* b, float* c) {
    dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.f, a, ta ? m : k, b, tb ? k : n, 0.f,
               c, n);
  };
  return lib;
}

}  // namespace tfipu_bench
