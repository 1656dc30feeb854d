// gemm_compare: the single-precision GEMM libraries Debian packages, on the
// products of one training step of the benchmark MLP (784-256-128-10, batch
// 32: forward, input gradients, weight gradients) and on n = 1024 (the
// machine's peak), at 1 and 2 threads, measured side by side in one run.
// Each library's results are first checked against Eigen's, so that every
// column computes the same products.
//
//   tools/bench/bootstrap_peers.sh
//   bazel run -c opt //tools/bench:gemm_compare [-- --threads=2]
//
// Libraries: Eigen 3.4 (the library's own kernels), OpenBLAS (pthreads),
// BLIS (OpenMP), oneDNN (dnnl_sgemm, OpenMP), libxsmm (small products,
// single-threaded; it hands large ones to the loaded BLAS).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/bench/gemm_library.h"
#include "tools/bench/machine_info.h"
#include "tools/bench/stopwatch.h"
#include "tools/bench/table.h"

namespace tfipu_bench {
namespace {

struct Shape {
  std::string what;
  int m, n, k;
  bool ta, tb;
};

// The products of a training step of the MLP at batch 32, as the
// library's MatMul gradients compute them, and the square one.
std::vector<Shape> Shapes() {
  return {
      {"x W1: 32x784 . 784x256", 32, 256, 784, false, false},
      {"h1 W2: 32x256 . 256x128", 32, 128, 256, false, false},
      {"h2 W3: 32x128 . 128x10", 32, 10, 128, false, false},
      {"dh1 = dh2 W2^T: 32x128 . (256x128)^T", 32, 256, 128, false, true},
      {"dh2 = dy W3^T: 32x10 . (128x10)^T", 32, 128, 10, false, true},
      {"dW1 = x^T dh1: (32x784)^T . 32x256", 784, 256, 32, true, false},
      {"dW2 = h1^T dh2: (32x256)^T . 32x128", 256, 128, 32, true, false},
      {"dW3 = h2^T dy: (32x128)^T . 32x10", 128, 10, 32, true, false},
      {"square: 1024x1024 . 1024x1024", 1024, 1024, 1024, false, false},
  };
}

std::vector<float> Values(size_t n, float seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(seed + 0.37f * static_cast<float>(i));
  return v;
}

// GFLOP/s of the product: the best of 3 timed batches of calls, each batch
// long enough (about 20 ms) for the clock.
double Measure(const GemmLibrary& lib, const Shape& s, const std::vector<float>& a,
               const std::vector<float>& b, std::vector<float>& c) {
  auto call = [&] { lib.gemm(s.m, s.n, s.k, s.ta, s.tb, a.data(), b.data(), c.data()); };
  call();
  Stopwatch probe;
  call();
  const double once = std::max(probe.Seconds(), 1e-7);
  const int calls = std::max(1, static_cast<int>(0.02 / once));
  double best = 0;
  for (int r = 0; r < 3; ++r) {
    Stopwatch sw;
    for (int i = 0; i < calls; ++i) call();
    best = std::max(best, 2.0 * s.m * s.n * s.k * calls / sw.Seconds() / 1e9);
  }
  return best;
}

int Main(int argc, char** argv) {
  int max_threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (std::sscanf(argv[i], "--threads=%d", &max_threads) != 1 || max_threads < 1) {
      std::cerr << "usage: gemm_compare [--threads=N]  (N >= 1; 1..N are measured)\n";
      return 2;
    }
  }
  std::vector<GemmLibrary> libs = {EigenGemm(), OpenBlasGemm(), BlisGemm(), DnnlGemm(),
                                   XsmmGemm()};
  for (auto it = libs.begin(); it != libs.end();) {
    if (it->gemm) {
      ++it;
    } else {
      std::cerr << "gemm_compare: " << it->name << ": left out\n";
      it = libs.erase(it);
    }
  }
  std::cout << MachineSummary() << "\n";
  // Same products: every library against Eigen, before anything is timed.
  for (const Shape& s : Shapes()) {
    const std::vector<float> a = Values(static_cast<size_t>(s.m) * s.k, 0.1f);
    const std::vector<float> b = Values(static_cast<size_t>(s.k) * s.n, 0.7f);
    std::vector<float> want(static_cast<size_t>(s.m) * s.n), got(want.size());
    libs[0].gemm(s.m, s.n, s.k, s.ta, s.tb, a.data(), b.data(), want.data());
    for (size_t l = 1; l < libs.size(); ++l) {
      libs[l].gemm(s.m, s.n, s.k, s.ta, s.tb, a.data(), b.data(), got.data());
      double worst = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        worst = std::max(worst, std::abs(double(got[i]) - want[i]) / (1 + std::abs(want[i])));
      }
      if (!(worst < 1e-4)) {
        std::cerr << "gemm_compare: " << libs[l].name << " differs from Eigen on '" << s.what
                  << "' by " << worst << " (relative); the comparison is void\n";
        return 1;
      }
    }
  }
  for (int threads = 1; threads <= max_threads; ++threads) {
    std::vector<std::string> header = {"product (m x k . k x n)"};
    for (const GemmLibrary& lib : libs) header.push_back(lib.name);
    header.push_back("fastest");
    Table table(header);
    for (const Shape& s : Shapes()) {
      const std::vector<float> a = Values(static_cast<size_t>(s.m) * s.k, 0.1f);
      const std::vector<float> b = Values(static_cast<size_t>(s.k) * s.n, 0.7f);
      std::vector<float> c(static_cast<size_t>(s.m) * s.n);
      std::vector<std::string> row = {s.what};
      double best = 0;
      std::string fastest;
      for (GemmLibrary& lib : libs) {
        if (!lib.threaded && threads > 1) {
          row.push_back("-");
          continue;
        }
        lib.set_threads(threads);
        const double gflops = Measure(lib, s, a, b, c);
        row.push_back(absl::StrFormat("%.1f", gflops));
        if (gflops > best) {
          best = gflops;
          fastest = lib.name.substr(0, lib.name.find(' '));
        }
      }
      row.push_back(fastest);
      table.AddRow(row);
    }
    std::cout << "## GFLOP/s at " << threads << (threads == 1 ? " thread" : " threads")
              << "\n\n" << table.ToMarkdown() << "\n";
  }
  std::cout << "Load average (1 min) at the end: " << LoadAverage1m() << "\n";
  return 0;
}

}  // namespace
}  // namespace tfipu_bench

int main(int argc, char** argv) { return tfipu_bench::Main(argc, argv); }
