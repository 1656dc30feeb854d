#include <dlfcn.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "libxsmm.h"
#include "tools/bench/gemm_library.h"

namespace tfipu_bench {

GemmLibrary XsmmGemm() {
  GemmLibrary lib;
  // Beyond its JIT sizes libxsmm calls the sgemm_ the dynamic loader finds
  // first (BLIS's here: OpenBLAS is opened privately, gemm_openblas.cc).
  std::string fallback = "sgemm_";
  Dl_info info;
  void* sgemm = ::dlsym(RTLD_DEFAULT, "sgemm_");
  if (sgemm != nullptr && ::dladdr(sgemm, &info) != 0 && info.dli_fname != nullptr) {
    const std::string path = info.dli_fname;
    fallback = absl::StrCat("sgemm_ of ", path.substr(path.rfind('/') + 1));
  }
  lib.name = absl::StrCat("libxsmm ", LIBXSMM_VERSION, " (one thread; beyond its JIT sizes, ",
                          fallback, ")");
  lib.threaded = false;
  lib.set_threads = [](int) {};
  // Column-major, as Fortran: the row-major C = op(A) op(B) is the
  // column-major C^T = op(B)^T op(A)^T, so A and B swap places.
  lib.gemm = [](int m, int n, int k, bool ta, bool tb, const float* a, const float* b, float* c) {
    const char transa = tb ? 'T' : 'N', transb = ta ? 'T' : 'N';
    const libxsmm_blasint M = n, N = m, K = k, lda = tb ? k : n, ldb = ta ? m : k, ldc = n;
    const float one = 1, zero = 0;
    libxsmm_sgemm(&transa, &transb, &M, &N, &K, &one, b, &lda, a, &ldb, &zero, c, &ldc);
  };
  return lib;
}

}  // namespace tfipu_bench
