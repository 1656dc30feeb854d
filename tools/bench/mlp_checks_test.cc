#include "tools/bench/mlp_checks.h"

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

TEST(MlpChecksTest, InferenceChecksumAveragesAndCountsHits) {
  InferenceChecksum sum(2);
  const float logits[] = {1, 3, 4, 0};  // argmax 1, 0
  const int32_t labels[] = {1, 1};
  sum.Add(logits, labels, 2);
  EXPECT_DOUBLE_EQ(sum.mean_logit(), 2.0);
  EXPECT_DOUBLE_EQ(sum.accuracy(), 0.5);
  std::vector<Check> c = sum.Checks();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].name, "mean logit");
}

TEST(MlpChecksTest, LossWindowKeepsTheLastValues) {
  LossWindow w(2);
  w.Add(10);
  w.Add(1);
  w.Add(3);
  EXPECT_DOUBLE_EQ(w.Mean(), 2.0);
}

TEST(MlpChecksTest, TrainingChecksEvaluateTheTestSet) {
  ImageSet test;
  test.count = 2;
  test.pixels = 2;
  test.classes = 2;
  test.images = {1, 0, 0, 1};
  test.labels = {0, 0};
  MlpWeights identity;
  identity.layers.push_back({2, 2, {1, 0, 0, 1}, {0, 0}});
  LossWindow w;
  w.Add(0.5);
  std::vector<Check> c = TrainingChecks(w, identity, test);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c[0].value, 0.5);
  EXPECT_DOUBLE_EQ(c[1].value, 0.5);
}

}  // namespace
}  // namespace tfipu_bench
