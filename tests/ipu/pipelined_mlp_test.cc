// The pipelined-training example: two stages on two IPUs train the same
// weights as one IPU accumulating the same micro-batches, in each schedule
// and with 2 stages x 2 replicas; and the stages' overlap shows in the
// simulated time: Grouped beats Sequential (the same stages run one at a
// time), but by less than the 2 IPUs (ramp-up and ramp-down, the
// activations crossing the IPU-Link, the host transfers).
#include <cmath>

#include "examples/multi_ipu/pipelined_mlp.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace {

using examples::PipelinedMlpConfig;
using examples::PipelinedMlpRun;
using Schedule = ipu::pipelining_ops::PipelineSchedule;

PipelinedMlpConfig Small() {
  PipelinedMlpConfig c;
  c.micro_batch = 32;
  c.hidden = 256;
  c.cut = 16;
  c.accumulation = 8;
  c.repeat = 1;
  return c;
}

void ExpectSameWeights(const PipelinedMlpRun& a, const PipelinedMlpRun& b) {
  ASSERT_EQ(a.w1.size(), b.w1.size());
  for (size_t i = 0; i < a.w1.size(); ++i) ASSERT_NEAR(a.w1[i], b.w1[i], 1e-5) << "weight " << i;
  ASSERT_EQ(a.losses.size(), b.losses.size());
  for (size_t i = 0; i < a.losses.size(); ++i) EXPECT_NEAR(a.losses[i], b.losses[i], 1e-5) << i;
}

TEST(PipelinedMlpTest, EveryScheduleTrainsLikeOneIpuAndGroupedOverlapsTheStages) {
  PipelinedMlpConfig one = Small();
  one.pipelined = false;
  absl::StatusOr<PipelinedMlpRun> base = examples::TrainPipelinedMlp(one);
  ASSERT_TRUE(base.ok()) << base.status();
  ASSERT_EQ(base->losses.size(), 8u);
  PipelinedMlpRun by_schedule[3];
  for (Schedule s : {Schedule::Grouped, Schedule::Interleaved, Schedule::Sequential}) {
    PipelinedMlpConfig c = Small();
    c.schedule = s;
    absl::StatusOr<PipelinedMlpRun> r = examples::TrainPipelinedMlp(c);
    ASSERT_TRUE(r.ok()) << static_cast<int>(s) << ": " << r.status();
    ExpectSameWeights(*base, *r);
    by_schedule[static_cast<int>(s)] = *r;
  }
  const double speed_up = by_schedule[static_cast<int>(Schedule::Sequential)].seconds /
                          by_schedule[static_cast<int>(Schedule::Grouped)].seconds;
  EXPECT_GT(speed_up, 1.1);
  EXPECT_LT(speed_up, 2.0);
}

TEST(PipelinedMlpTest, TwoStagesTimesTwoReplicasTrainLikeOneIpu) {
  PipelinedMlpConfig one = Small();
  one.pipelined = false;
  absl::StatusOr<PipelinedMlpRun> base = examples::TrainPipelinedMlp(one);
  ASSERT_TRUE(base.ok()) << base.status();
  PipelinedMlpConfig c = Small();
  c.replicas = 2;
  absl::StatusOr<PipelinedMlpRun> r = examples::TrainPipelinedMlp(c);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectSameWeights(*base, *r);
}

// With a cross-replica sum buffer, each stage's weight-gradient
// all-reduces become one per update: the same weights and losses bit for
// bit, in less simulated time (one ring's syncs and link latencies per
// stage instead of one per gradient).
TEST(PipelinedMlpTest, TwoStagesTimesTwoReplicasWithTheirAllReducesCombined) {
  PipelinedMlpConfig c = Small();
  c.replicas = 2;
  absl::StatusOr<PipelinedMlpRun> separate = examples::TrainPipelinedMlp(c);
  ASSERT_TRUE(separate.ok()) << separate.status();
  c.cross_replica_sum_buffer = 10 << 20;
  absl::StatusOr<PipelinedMlpRun> combined = examples::TrainPipelinedMlp(c);
  ASSERT_TRUE(combined.ok()) << combined.status();
  EXPECT_EQ(combined->w1, separate->w1);
  EXPECT_EQ(combined->losses, separate->losses);
  EXPECT_LT(combined->seconds, separate->seconds);
}

}  // namespace
}  // namespace tensorflow_ipu
