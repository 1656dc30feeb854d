#include "tools/bench/growth_fit.h"

#include <cmath>

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

TEST(GrowthFitTest, RecoversPowerLaws) {
  GrowthFit lin = FitGrowth({1e3, 1e4, 1e5}, {2e-3, 2e-2, 2e-1});
  EXPECT_NEAR(lin.exponent, 1.0, 1e-12);
  EXPECT_NEAR(lin.coefficient, 2e-6, 1e-15);
  EXPECT_NEAR(lin.r_squared, 1.0, 1e-12);
  GrowthFit quad = FitGrowth({10, 100, 1000}, {1, 100, 10000});
  EXPECT_NEAR(quad.exponent, 2.0, 1e-12);
}

TEST(GrowthFitTest, LeastSquaresOverNoisyPoints) {
  // log10 t = 0, 1.1, 1.9 over log10 n = 0, 1, 2: slope 0.95.
  GrowthFit f = FitGrowth({1, 10, 100}, {1, std::pow(10, 1.1), std::pow(10, 1.9)});
  EXPECT_NEAR(f.exponent, 0.95, 1e-12);
  EXPECT_LT(f.r_squared, 1.0);
}

TEST(GrowthFitTest, SkipsUntimedPointsAndNeedsTwo) {
  EXPECT_NEAR(FitGrowth({1, 10, 100}, {0, 3, 30}).exponent, 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(FitGrowth({1, 10}, {0, 3}).exponent));
  EXPECT_TRUE(std::isnan(FitGrowth({5, 5}, {1, 2}).exponent));
}

}  // namespace
}  // namespace tfipu_bench
