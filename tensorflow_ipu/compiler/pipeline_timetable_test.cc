#include "tensorflow_ipu/compiler/pipeline_timetable.h"

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

TEST(PipelineTimetableTest, GroupedTrainingRunsEveryUnitInEverySteadySlot) {
  const PipelineTimetable t(PipelineScheduleKind::kGrouped, 2, /*training=*/true, 4);
  EXPECT_EQ(t.overlap(), 4);
  EXPECT_EQ(t.num_units(), 4);
  EXPECT_EQ(t.interval(), 1);
  // F0, F1, B1, B0.
  EXPECT_EQ(t.Unit(1, /*backward=*/true), 2);
  EXPECT_EQ(t.UnitName(3), "backward pass of stage 0");
  EXPECT_EQ(t.Position(t.Unit(0, false)), 0);
  EXPECT_EQ(t.Position(t.Unit(1, true)), 2);
  EXPECT_EQ(t.Position(t.Unit(0, true)), 3);
  // Micro-batch 3 leaves B0 in slot 6: 7 slots for 4 micro-batches.
  EXPECT_EQ(t.num_slots(), 7);
  EXPECT_EQ(t.MicroBatchAt(t.Unit(0, true), 3), 0);
  EXPECT_EQ(t.MicroBatchAt(t.Unit(0, true), 6), 3);
  EXPECT_EQ(t.MicroBatchAt(t.Unit(0, true), 2), -1);
  EXPECT_EQ(t.MicroBatchAt(t.Unit(0, false), 4), -1);
  // Slot 3 is the steady state: every unit works.
  for (int u = 0; u < 4; ++u) EXPECT_EQ(t.MicroBatchAt(u, 3), 3 - t.Position(u));
}

TEST(PipelineTimetableTest, InterleavedAlternatesForwardAndBackwardOnEachIpu) {
  const PipelineTimetable t(PipelineScheduleKind::kInterleaved, 2, true, 4);
  EXPECT_EQ(t.overlap(), 2);
  EXPECT_EQ(t.interval(), 2);
  EXPECT_EQ(t.num_slots(), 2 * 3 + 3 + 1);
  // Stage 0's IPU: forward in even slots, backward in odd ones.
  const int f0 = t.Unit(0, false), b0 = t.Unit(0, true);
  for (int64_t slot = 3; slot < 7; ++slot) {
    const bool forward = t.MicroBatchAt(f0, slot) >= 0;
    const bool backward = t.MicroBatchAt(b0, slot) >= 0;
    EXPECT_NE(forward, backward) << "slot " << slot;
    EXPECT_EQ(forward, slot % 2 == 0) << "slot " << slot;
  }
}

TEST(PipelineTimetableTest, InferenceHasForwardUnitsOnly) {
  const PipelineTimetable t(PipelineScheduleKind::kGrouped, 3, /*training=*/false, 6);
  EXPECT_EQ(t.overlap(), 3);
  EXPECT_EQ(t.num_units(), 3);
  EXPECT_EQ(t.num_slots(), 8);
  EXPECT_EQ(PipelineTimetable(PipelineScheduleKind::kInterleaved, 3, false, 6).interval(), 1);
  EXPECT_EQ(PipelineTimetable(PipelineScheduleKind::kSequential, 3, true, 6).overlap(), 1);
}

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
