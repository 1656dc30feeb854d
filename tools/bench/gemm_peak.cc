#include "tools/bench/gemm_peak.h"

#include <algorithm>
#include <cstdint>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
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
