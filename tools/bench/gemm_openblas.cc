// OpenBLAS's cblas_sgemm, loaded on its own. gemm_compare also links BLIS,
// which exports the same BLAS and CBLAS names: linked both ways, every call
// of cblas_sgemm (and libxsmm's sgemm_) went to whichever library the
// dynamic loader found first, BLIS, and the "OpenBLAS" column measured
// BLIS. So OpenBLAS is not linked: it is opened with RTLD_DEEPBIND (its own
// calls stay inside it) and its functions are looked up in that handle.
#include <dlfcn.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "openblas-pthread/cblas.h"
#include "tools/bench/gemm_library.h"

namespace tfipu_bench {
namespace {

constexpr char kOpenBlasPath[] = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0";

using SgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint,
                         float, const float*, blasint, const float*, blasint, float, float*,
                         blasint);
using SetThreadsFn = void (*)(int);
using CoreNameFn = char* (*)();

struct OpenBlas {
  SgemmFn sgemm = nullptr;
  SetThreadsFn set_threads = nullptr;
  CoreNameFn core_name = nullptr;
};

// Opened once and kept for the process.
const OpenBlas& Loaded() {
  static const OpenBlas lib = [] {
    OpenBlas l;
    // Some machines pin OpenBLAS to older kernels (OPENBLAS_CORETYPE=Haswell
    // on an AVX-512 CPU; PEERS.md): it reads these when it is loaded, so
    // unset here they let it pick the kernels of this CPU, which the
    // column's name gives.
    ::unsetenv("OPENBLAS_CORETYPE");
    ::unsetenv("OPENBLAS_L2_SIZE");
    void* handle = ::dlopen(kOpenBlasPath, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (handle == nullptr) {
      std::cerr << "gemm_compare: cannot open " << kOpenBlasPath << ": " << ::dlerror()
                << " (install libopenblas0-pthread: tools/bench/bootstrap_peers.sh)\n";
      return l;
    }
    l.sgemm = reinterpret_cast<SgemmFn>(::dlsym(handle, "cblas_sgemm"));
    l.set_threads = reinterpret_cast<SetThreadsFn>(::dlsym(handle, "openblas_set_num_threads"));
    l.core_name = reinterpret_cast<CoreNameFn>(::dlsym(handle, "openblas_get_corename"));
    return l;
  }();
  return lib;
}

}  // namespace

GemmLibrary OpenBlasGemm() {
  const OpenBlas& blas = Loaded();
  GemmLibrary lib;
  lib.name = absl::StrCat(
      absl::StripAsciiWhitespace(OPENBLAS_VERSION), " (pthreads",
      blas.core_name != nullptr ? absl::StrCat(", kernels for ", blas.core_name()) : std::string(),
      ")");
  if (blas.sgemm == nullptr || blas.set_threads == nullptr) {
    lib.name += " -- not loaded";
    lib.set_threads = [](int) {};
    lib.gemm = nullptr;
    return lib;
  }
  lib.set_threads = [&blas](int n) { blas.set_threads(n); };
  lib.gemm = [&blas](int m, int n, int k, bool ta, bool tb, const float* a, const float* b,
                     float* c) {
    blas.sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
               k, 1.f, a, ta ? m : k, b, tb ? k : n, 0.f, c, n);
  };
  return lib;
}

}  // namespace tfipu_bench
