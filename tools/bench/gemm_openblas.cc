#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "openblas-pthread/cblas.h"
#include "tools/bench/gemm_library.h"

namespace tfipu_bench {

GemmLibrary OpenBlasGemm() {
  GemmLibrary lib;
  lib.name = absl::StrCat(absl::StripAsciiWhitespace(OPENBLAS_VERSION), " (pthreads)");
  lib.set_threads = [](int n) { openblas_set_num_threads(n); };
  lib.gemm = [](int m, int n, int k, bool ta, bool tb, const float* a, const float* b, float* c) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m,
                n, k, 1.f, a, ta ? m : k, b, tb ? k : n, 0.f, c, n);
  };
  return lib;
}

}  // namespace tfipu_bench
