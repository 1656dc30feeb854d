#include "tools/bench/keras_cnn.h"

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

TEST(KerasCnnTest, TheTutorialsParameterCount) {
  EXPECT_EQ(CnnParamCount(ZeroCnnWeights()), 34826) << "Keras's summary of the seed's model";
}

TEST(KerasCnnTest, FlopsCountedByHand) {
  // Per image: forward 2 x 2,440,960; training adds the weight gradients
  // (as much again) and the input gradients of conv2 and dense (2,246,272).
  EXPECT_DOUBLE_EQ(CnnInferenceFlops(1), 2.0 * 2440960);
  EXPECT_DOUBLE_EQ(CnnTrainingFlops(1), 2.0 * (2 * 2440960 + 2246272));
  EXPECT_DOUBLE_EQ(CnnTrainingFlops(64), 64 * CnnTrainingFlops(1));
}

}  // namespace
}  // namespace tfipu_bench
