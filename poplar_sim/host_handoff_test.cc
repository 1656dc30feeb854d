#include "poplar_sim/host_handoff.h"

#include <thread>

#include "gtest/gtest.h"

namespace poplar_sim {
namespace internal {
namespace {

// The lanes' threshold: the old default unless the hand-off is slow or
// could not be measured (two threads could not each get a core).
TEST(HostHandOffTest, DefaultMinLaneWorkRisesForSlowOrUnmeasuredHandOffs) {
  EXPECT_EQ(DefaultMinLaneWork(0), 4000000u);
  EXPECT_EQ(DefaultMinLaneWork(60), 200000u);
  EXPECT_EQ(DefaultMinLaneWork(kSlowHandOffNs), 200000u);
  EXPECT_EQ(DefaultMinLaneWork(kSlowHandOffNs + 1), 4000000u);
  EXPECT_EQ(DefaultMinLaneWork(167), 4000000u);  // the Xeon VMs
  EXPECT_EQ(DefaultMinLaneWork(480), 4000000u);  // the AMD VM
}

// A round trip takes more than a nanosecond and much less than the
// measurement's budget; 0 only without a second core or when the helper
// could not get one in time (a loaded machine).
TEST(HostHandOffTest, MeasuresARoundTripWithinItsBudget) {
  const uint64_t ns = MeasureHostHandOffRoundTripNs(20000);
  if (std::thread::hardware_concurrency() < 2) {
    EXPECT_EQ(ns, 0u);
  } else if (ns != 0) {
    EXPECT_GT(ns, 1u);
    EXPECT_LT(ns, 20000u * 1000u);
  }
  // Measured once per process: the same answer every time.
  EXPECT_EQ(HostHandOffRoundTripNs(), HostHandOffRoundTripNs());
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
