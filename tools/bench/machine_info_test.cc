#include "tools/bench/machine_info.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

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

TEST(MachineInfoTest, FindsMappedLibraries) {
  // The C library is mapped into every dynamically linked process.
  EXPECT_TRUE(absl::StrContains(LoadedLibraryPath("libc.so"), "/libc.so"));
  EXPECT_EQ(LoadedLibraryPath("no_such_library_xyz"), "");
}

}  // namespace
}  // namespace tfipu_bench
