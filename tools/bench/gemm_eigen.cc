#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tools/bench/gemm_library.h"

namespace tfipu_bench {

GemmLibrary EigenGemm() {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Map = Eigen::Map<const Matrix>;
  GemmLibrary lib;
  lib.name = absl::StrCat("Eigen ", EIGEN_WORLD_VERSION, ".", EIGEN_MAJOR_VERSION, ".",
                          EIGEN_MINOR_VERSION, " (OpenMP)");
  lib.set_threads = [](int n) { Eigen::setNbThreads(n); };
  lib.gemm = [](int m, int n, int k, bool ta, bool tb, const float* a, const float* b, float* c) {
    Eigen::Map<Matrix> out(c, m, n);
    Map ma(a, ta ? k : m, ta ? m : k), mb(b, tb ? n : k, tb ? k : n);
    if (ta && tb) {
      out.noalias() = ma.transpose() * mb.transpose();
    } else if (ta) {
      out.noalias() = ma.transpose() * mb;
    } else if (tb) {
      out.noalias() = ma * mb.transpose();
    } else {
      out.noalias() = ma * mb;
    }
  };
  return lib;
}

}  // namespace tfipu_bench
