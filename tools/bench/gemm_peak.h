// The machine's limit for the MLP benchmarks: the single-precision GEMM
// rate of a square product (n = 1024: large enough that a good BLAS runs
// at its peak), measured in the same run as the contestants, so that each
// one's share of the machine shows on every machine and under every load.
//
//   GemmPeak peak = BestGemmPeak({MeasureEigenGemm(threads), MeasureDnnlGemm(threads),
//                                 MeasureTorchGemm(threads)});  // torch_peer.h
//   contest.SetPeak(peak);
#ifndef TOOLS_BENCH_GEMM_PEAK_H_
#define TOOLS_BENCH_GEMM_PEAK_H_

#include <functional>
#include <vector>

#include "tools/bench/contest.h"

namespace tfipu_bench {

inline constexpr int kPeakGemmSize = 1024;

// GFLOP/s of `gemm` (one n x n x n product, 2 n^3 operations): the best of
// `repeats` timed calls after one warm-up call. The best, not the median:
// the peak is what the machine can do, and load only slows it down.
double TimeGemmGflops(const std::function<void()>& gemm, int n, int repeats = 5);

// Eigen's float product at n = kPeakGemmSize on `threads` threads (its
// OpenMP threads, as the hand-written Eigen contestant uses them).
GemmPeak MeasureEigenGemm(int threads);

// oneDNN's dnnl_sgemm at n = kPeakGemmSize on `threads` threads, each
// multiplying a band of rows on one thread: the library the project's own
// products call (one thread per product), and on some of these machines far
// ahead of Eigen and OpenBLAS (an AMD EPYC VM: 373 GFLOP/s at 2 threads
// against Eigen's 253 and OpenBLAS's 67), so a peak without it overstates
// every contestant's share of the machine. gflops 0 if oneDNN refused.
GemmPeak MeasureDnnlGemm(int threads);

// The fastest of the measured ones (gflops 0 when none ran).
GemmPeak BestGemmPeak(const std::vector<GemmPeak>& measured);

// The GEMM operations of one training step of an MLP of `sizes` (inputs,
// hidden..., outputs) on a batch: the forward products, the weight
// gradients, and the input gradients of every layer but the first.
double MlpTrainingFlops(const std::vector<int>& sizes, int batch);
// The forward products alone.
double MlpInferenceFlops(const std::vector<int>& sizes, int batch);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_GEMM_PEAK_H_
