#include "tools/bench/bench_flags.h"

#include "absl/flags/flag.h"
#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

TEST(BenchFlagsTest, DefaultsAndOverrides) {
  ContestOptions o = ContestOptionsFromFlags(1875);
  EXPECT_EQ(o.steps, 1875);
  EXPECT_EQ(o.repeats, 3);
  EXPECT_TRUE(o.only.empty());
  EXPECT_EQ(BenchThreads(), 2);

  absl::SetFlag(&FLAGS_steps, 100);
  absl::SetFlag(&FLAGS_repeats, 1);
  absl::SetFlag(&FLAGS_only, "eigen,,tfipu-cpu");
  absl::SetFlag(&FLAGS_threads, 0);
  o = ContestOptionsFromFlags(1875);
  EXPECT_EQ(o.steps, 100);
  EXPECT_EQ(o.repeats, 1);
  EXPECT_EQ(o.only, (std::vector<std::string>{"eigen", "tfipu-cpu"}));
  EXPECT_EQ(BenchThreads(), 1);  // at least one
}

}  // namespace
}  // namespace tfipu_bench
