#include "tools/bench/gemm_peak.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.h"
#include "tools/bench/stopwatch.h"

namespace tfipu_bench {

double TimeGemmGflops(const std::function<void()>& gemm, int n, int repeats) {
  gemm();  // warm-up: page faults, thread start-up, packing buffers
  double best = 0;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    Stopwatch sw;
    gemm();
    const double seconds = sw.Seconds();
    if (seconds > 0) best = std::max(best, 2.0 * n * n * n / seconds / 1e9);
  }
  return best;
}

GemmPeak MeasureEigenGemm(int threads) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int n = kPeakGemmSize;
  const int before = Eigen::nbThreads();
  Eigen::setNbThreads(threads);
  Matrix a = Matrix::Random(n, n), b = Matrix::Random(n, n), c(n, n);
  GemmPeak peak;
  peak.gflops = TimeGemmGflops([&] { c.noalias() = a * b; }, n);
  peak.how = absl::StrCat("Eigen ", EIGEN_WORLD_VERSION, ".", EIGEN_MAJOR_VERSION, ".",
                          EIGEN_MINOR_VERSION, ", n = ", n, ", ", Eigen::nbThreads(),
                          Eigen::nbThreads() == 1 ? " thread" : " threads");
  Eigen::setNbThreads(before);
  return peak;
}

GemmPeak MeasureDnnlGemm(int threads) {
  const int n = kPeakGemmSize;
  threads = std::max(threads, 1);
  std::vector<float> a(size_t{n} * n), b(size_t{n} * n), c(size_t{n} * n);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 7) * 0.25f;
    b[i] = static_cast<float>(i % 5) * 0.5f;
  }
  // Each thread multiplies its band of A's rows by B, oneDNN on that thread
  // alone (Debian's oneDNN threads on OpenMP with the calling thread's
  // count). Not one call on `threads` OpenMP threads: the benchmarks run
  // with OMP_WAIT_POLICY=passive (peer_env.h), under which oneDNN's own
  // barriers sleep and its 2-thread product lost a third of its speed here
  // (229 GFLOP/s against 373 with active waiting); bands on plain threads
  // measure what the cores can do. Starting the threads is timed with the
  // product (tens of microseconds against milliseconds).
  std::atomic<bool> ok{true};
  auto band = [&](int t) {
    const int first = n * t / threads, rows = n * (t + 1) / threads - first;
    const int before = omp_get_max_threads();
    omp_set_num_threads(1);
    if (dnnl_sgemm('N', 'N', rows, n, n, 1.f, a.data() + size_t{first} * n, n, b.data(), n, 0.f,
                   c.data() + size_t{first} * n, n) != dnnl_success) {
      ok = false;
    }
    omp_set_num_threads(before);
  };
  const double gflops = TimeGemmGflops(
      [&] {
        std::vector<std::thread> helpers;
        for (int t = 1; t < threads; ++t) helpers.emplace_back(band, t);
        band(0);
        for (std::thread& h : helpers) h.join();
      },
      n);
  const dnnl_version_t* v = dnnl_version();
  GemmPeak peak;
  peak.gflops = ok ? gflops : 0;
  peak.how = absl::StrCat("oneDNN ", v->major, ".", v->minor, ".", v->patch, " dnnl_sgemm, n = ", n,
                          ", ", threads, threads == 1 ? " thread" : " threads, a band of rows each",
                          ok ? "" : " (refused)");
  return peak;
}

GemmPeak BestGemmPeak(const std::vector<GemmPeak>& measured) {
  GemmPeak best;
  for (const GemmPeak& p : measured) {
    if (p.gflops > best.gflops) best = p;
  }
  return best;
}

double MlpInferenceFlops(const std::vector<int>& sizes, int batch) {
  double flops = 0;
  for (size_t k = 0; k + 1 < sizes.size(); ++k) {
    flops += 2.0 * batch * sizes[k] * sizes[k + 1];
  }
  return flops;
}

double MlpTrainingFlops(const std::vector<int>& sizes, int batch) {
  double flops = 2 * MlpInferenceFlops(sizes, batch);  // forward, weight gradients
  for (size_t k = 1; k + 1 < sizes.size(); ++k) {
    flops += 2.0 * batch * sizes[k] * sizes[k + 1];  // input gradients, not the first's
  }
  return flops;
}

}  // namespace tfipu_bench
