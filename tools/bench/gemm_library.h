// One GEMM library as gemm_compare measures it: a row-major float product
// C[m, n] = op(A)[m, k] op(B)[k, n] (op: transposed or not, A and B stored
// densely as op needs), and the library's own thread count. Each library
// is in a file of its own (gemm_<name>.cc): their headers clash.
#ifndef TOOLS_BENCH_GEMM_LIBRARY_H_
#define TOOLS_BENCH_GEMM_LIBRARY_H_

#include <functional>
#include <string>

namespace tfipu_bench {

struct GemmLibrary {
  std::string name;     // "OpenBLAS 0.3.21 (pthreads)"
  bool threaded = true;  // false: it runs on one thread whatever is asked
  std::function<void(int threads)> set_threads;
  std::function<void(int m, int n, int k, bool transpose_a, bool transpose_b, const float* a,
                     const float* b, float* c)>
      gemm;
};

GemmLibrary EigenGemm();     // gemm_eigen.cc: Eigen 3.4, as the library's kernels use it
GemmLibrary OpenBlasGemm();  // gemm_openblas.cc: cblas_sgemm
GemmLibrary BlisGemm();      // gemm_blis.cc: bli_sgemm (OpenMP build)
GemmLibrary DnnlGemm();      // gemm_dnnl.cc: oneDNN's dnnl_sgemm
GemmLibrary XsmmGemm();      // gemm_xsmm.cc: libxsmm_sgemm (small products; BLAS beyond)

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_GEMM_LIBRARY_H_
