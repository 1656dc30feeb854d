// A short version of each variant of the tutorial: one epoch on 2,048
// Fashion-MNIST images, with SGD's learning rate at 0.1. Each learns (accuracy well above the 10% of
// chance), and the IPU variants whose maths is the same (one IPU, with and
// without steps_per_execution) agree.
#include "gtest/gtest.h"
#include "examples/keras/tutorial.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/ipu/ipu_system.h"

namespace tensorflow_ipu {
namespace examples {
namespace {

TutorialResult RunShort(TutorialVariant v) {
  TutorialOptions o;
  o.variant = v;
  o.epochs = 1;
  o.train_limit = 2048;
  o.test_limit = 1024;
  o.verbose = 0;
  // A few steps learn visibly with a larger step than Keras's default.
  o.learning_rate = 0.1;
  absl::StatusOr<TutorialResult> r = RunTutorial(o);
  EXPECT_EQ(r.status(), absl::OkStatus());
  ipu::IpuSystem::Get().Reset();
  return r.ok() ? *r : TutorialResult();
}

TEST(KerasTutorialTest, EveryVariantLearns) {
  for (TutorialVariant v : {TutorialVariant::kCpu, TutorialVariant::kIpu,
                            TutorialVariant::kFaster, TutorialVariant::kReplicated,
                            TutorialVariant::kPipelined}) {
    TutorialResult r = RunShort(v);
    ASSERT_EQ(r.accuracies.size(), 1u) << "variant " << static_cast<int>(v);
    // The pipelined variant makes one weight update per 8 batches: 4 in
    // this epoch, so its bar is lower.
    const double bar = v == TutorialVariant::kPipelined ? 0.15 : 0.3;
    EXPECT_GT(r.eval_accuracy, bar) << "variant " << static_cast<int>(v);
    if (v != TutorialVariant::kCpu) {
      EXPECT_GT(r.ipu_seconds_per_step, 0) << "variant " << static_cast<int>(v);
    }
  }
}

// (How much faster it is, is the cost model's fidelity to the seed's
// figures, which a timed test must not assert.)
TEST(KerasTutorialTest, StepsPerExecutionGivesTheSameNumbers) {
  TutorialResult one = RunShort(TutorialVariant::kIpu);
  TutorialResult all = RunShort(TutorialVariant::kFaster);
  ASSERT_EQ(one.losses.size(), 1u);
  ASSERT_EQ(all.losses.size(), 1u);
  EXPECT_NEAR(one.losses[0], all.losses[0], 1e-4);
  EXPECT_NEAR(one.eval_accuracy, all.eval_accuracy, 1e-6);
}

}  // namespace
}  // namespace examples
}  // namespace tensorflow_ipu
