// OpenBLAS's own threads. libtorch's at::set_num_threads sizes its OpenMP
// pool, not the pthreads of the OpenBLAS it calls for its products, so a
// "1 thread" libtorch peer ran its GEMMs on every core. These reach
// OpenBLAS's openblas_set_num_threads / openblas_get_num_threads in the
// loaded library, when there is one (looked up at run time: the benchmarks
// have no OpenBLAS headers, and libtorch may be using another BLAS).
#ifndef TOOLS_BENCH_OPENBLAS_THREADS_H_
#define TOOLS_BENCH_OPENBLAS_THREADS_H_

namespace tfipu_bench {

// False when no OpenBLAS is loaded in the process.
bool SetOpenBlasThreads(int n);
// OpenBLAS's thread count, or -1 when no OpenBLAS is loaded.
int OpenBlasThreads();

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_OPENBLAS_THREADS_H_
