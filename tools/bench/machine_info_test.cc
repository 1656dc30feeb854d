#include "tools/bench/machine_info.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "poplar_sim/host_handoff.h"

namespace tfipu_bench {
namespace {

TEST(MachineInfoTest, DescribesThisMachine) {
  EXPECT_GE(LogicalCores(), 1);
  EXPECT_FALSE(CpuModel().empty());
  EXPECT_TRUE(absl::StrContains(MachineSummary(), "logical cores"));
  EXPECT_TRUE(absl::StrContains(BuildSummary(), "g++"));
  EXPECT_GE(LoadAverage1m(), 0.0);
  EXPECT_TRUE(absl::StrContains(MachineSummary(), "load average"));
}

// A round trip takes at least a nanosecond and far less than a millisecond
// (a time slice); -1 only without a second core, or when two threads could
// not each get a core in time (a loaded machine). The header says which
// lanes' threshold the engine takes from it.
TEST(MachineInfoTest, MeasuresACoreToCoreRoundTrip) {
  const double ns = CoreToCoreRoundTripNs();
  if (LogicalCores() < 2) {
    EXPECT_EQ(ns, -1);
  } else if (ns != -1) {
    EXPECT_GT(ns, 1.0);
    EXPECT_LT(ns, 1e6);
  }
  const std::string summary = MachineSummary();
  EXPECT_TRUE(absl::StrContains(summary, "core-to-core round trip of a cache line: "));
  EXPECT_TRUE(absl::StrContains(
      summary, absl::StrCat("debug.minLaneWork = ",
                            poplar_sim::internal::DefaultMinLaneWork(ns < 0 ? 0 : uint64_t(ns)))))
      << summary;
}

TEST(MachineInfoTest, FindsMappedLibraries) {
  // The C library is mapped into every dynamically linked process.
  EXPECT_TRUE(absl::StrContains(LoadedLibraryPath("libc.so"), "/libc.so"));
  EXPECT_EQ(LoadedLibraryPath("no_such_library_xyz"), "");
}

}  // namespace
}  // namespace tfipu_bench
