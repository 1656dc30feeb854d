#include "poplar_sim/ipu_timeline.h"

#include <vector>

#include "gtest/gtest.h"

namespace poplar_sim {
namespace internal {
namespace {

StepCost Compute(uint64_t cycles) {
  StepCost c;
  c.computeCycles = cycles;
  return c;
}

TEST(IpuTimelineTest, OneIpuAddsEveryStep) {
  IpuTimeline t(1);
  EXPECT_EQ(t.occupy({0}, Compute(10)), 0u);
  EXPECT_EQ(t.occupy({}, Compute(5)), 10u);
  EXPECT_EQ(t.elapsed(), 15u);
  EXPECT_EQ(t.total().computeCycles, 15u);
  EXPECT_EQ(t.total().syncCycles, 0u);
}

TEST(IpuTimelineTest, StepsOnDifferentIpusOverlap) {
  IpuTimeline t(2);
  const std::vector<unsigned> ipu0{0}, ipu1{1};
  EXPECT_EQ(t.occupy(ipu0, Compute(100)), 0u);
  EXPECT_EQ(t.occupy(ipu1, Compute(60)), 0u);  // at the same time
  EXPECT_EQ(t.elapsed(), 100u);
  // The critical IPU's cycles: IPU 0 computed 100 and never waited.
  EXPECT_EQ(t.total().computeCycles, 100u);
  EXPECT_EQ(t.total().cycles(), t.elapsed());
}

TEST(IpuTimelineTest, AStepOverSeveralIpusWaitsForTheLast) {
  IpuTimeline t(2);
  t.occupy(std::vector<unsigned>{0}, Compute(100));
  t.occupy(std::vector<unsigned>{1}, Compute(60));
  StepCost copy;
  copy.interIpuCycles = 7;
  copy.interIpuBytes = 64;
  EXPECT_EQ(t.occupy(std::vector<unsigned>{0, 1}, copy), 100u);
  EXPECT_EQ(t.clock(std::vector<unsigned>{1}), 107u);
  const StepCost total = t.total();
  EXPECT_EQ(total.cycles(), 107u);
  // IPU 0 waited 0 and IPU 1 40 cycles: the total is IPU 0's.
  EXPECT_EQ(total.syncCycles, 0u);
  EXPECT_EQ(total.interIpuBytes, 64u);  // bytes counted once
}

TEST(IpuTimelineTest, FreeStepsNeitherWaitNorBlock) {
  IpuTimeline t(2);
  t.occupy(std::vector<unsigned>{0}, Compute(100));
  StepCost bytesOnly;
  bytesOnly.exchangeBytes = 8;
  EXPECT_EQ(t.occupy({}, bytesOnly), 100u);
  EXPECT_EQ(t.clock(std::vector<unsigned>{1}), 0u);
  EXPECT_EQ(t.total().exchangeBytes, 8u);
}

TEST(IpuTimelineTest, LoopCountersRunOnEachIpuWithoutSync) {
  IpuTimeline t(2);
  t.occupy(std::vector<unsigned>{0}, Compute(100));
  StepCost loop;
  loop.controlCycles = 3;
  t.addToEach(loop);
  EXPECT_EQ(t.clock(std::vector<unsigned>{0}), 103u);
  EXPECT_EQ(t.clock(std::vector<unsigned>{1}), 3u);
}

TEST(IpuTimelineTest, WaitCountsAsSync) {
  IpuTimeline t(2);
  t.occupy(std::vector<unsigned>{1}, Compute(30));
  t.waitUntil({}, 50);
  EXPECT_EQ(t.elapsed(), 50u);
  // Both at 50: IPU 1 waited 20, IPU 0 50; the total is IPU 1's.
  EXPECT_EQ(t.total().computeCycles, 30u);
  EXPECT_EQ(t.total().syncCycles, 20u);
}

TEST(IpuTimelineTest, IpusOutOfRangeAreIgnored) {
  IpuTimeline t(1);
  EXPECT_EQ(t.occupy(std::vector<unsigned>{0, 5}, Compute(4)), 0u);
  EXPECT_EQ(t.elapsed(), 4u);
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
