#include "tools/bench/gemm_peak.h"

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

// The benchmark MLP at batch 32: 15.0 MFLOP forward, 32.2 per training
// step (2 x 32 x (784 x 256 + 256 x 128 + 128 x 10) = 15,024,128; twice that
// plus the input gradients of the last two layers, 2 x 32 x (256 x 128 +
// 128 x 10) = 2,179,072).
TEST(GemmPeakTest, MlpWork) {
  const std::vector<int> mlp = {784, 256, 128, 10};
  EXPECT_EQ(MlpInferenceFlops(mlp, 32), 15024128);
  EXPECT_EQ(MlpTrainingFlops(mlp, 32), 2 * 15024128 + 2179072);
  EXPECT_EQ(MlpTrainingFlops({4, 2}, 1), 2 * 16);  // one layer: no input gradient
}

TEST(GemmPeakTest, TheBestIsTheFastestMeasured) {
  EXPECT_EQ(BestGemmPeak({}).gflops, 0);
  const GemmPeak best = BestGemmPeak({{100, "a"}, {0, "failed"}, {180, "b"}, {150, "c"}});
  EXPECT_EQ(best.gflops, 180);
  EXPECT_EQ(best.how, "b");
}

// Eigen's product runs and gives a rate of the right order: above 0.1
// GFLOP/s (a scalar loop on any machine that runs the tests) and below
// 100 TFLOP/s. Speeds are never asserted more tightly in tests.
TEST(GemmPeakTest, EigenRuns) {
  const GemmPeak p = MeasureEigenGemm(1);
  EXPECT_GT(p.gflops, 0.1);
  EXPECT_LT(p.gflops, 1e5);
  EXPECT_NE(p.how.find("n = 1024, 1 thread"), std::string::npos) << p.how;
}

TEST(GemmPeakTest, DnnlRunsOnTheThreadsAsked) {
  const GemmPeak p = MeasureDnnlGemm(1);
  EXPECT_GT(p.gflops, 0.1) << p.how;
  EXPECT_LT(p.gflops, 1e5);
  EXPECT_NE(p.how.find("oneDNN "), std::string::npos) << p.how;
  EXPECT_NE(p.how.find("n = 1024, 1 thread"), std::string::npos) << p.how;
  EXPECT_EQ(p.how.find("refused"), std::string::npos) << p.how;
  const GemmPeak two = MeasureDnnlGemm(2);
  EXPECT_GT(two.gflops, 0.1) << two.how;
  EXPECT_NE(two.how.find("n = 1024, 2 threads, a band of rows each"), std::string::npos)
      << two.how;
}

TEST(GemmPeakTest, TimingCallsTheProductOncePerRepeatAndOnceToWarmUp) {
  int calls = 0;
  const double gflops = TimeGemmGflops([&] { ++calls; }, 8, 3);
  EXPECT_EQ(calls, 4);
  EXPECT_GE(gflops, 0);
}

}  // namespace
}  // namespace tfipu_bench
