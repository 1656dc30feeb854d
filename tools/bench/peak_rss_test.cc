#include "tools/bench/peak_rss.h"

#include <cstring>
#include <memory>

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

TEST(PeakRssTest, TouchedMemoryRaisesThePeak) {
  const size_t before = PeakRssBytes();
  ASSERT_GT(before, 0u);
  EXPECT_GE(before, CurrentRssBytes() / 2);
  constexpr size_t kBytes = 64 << 20;
  std::unique_ptr<char[]> block(new char[kBytes]);
  std::memset(block.get(), 1, kBytes);
  EXPECT_GE(CurrentRssBytes(), kBytes);
  EXPECT_GE(PeakRssBytes(), before + kBytes / 2);
  EXPECT_EQ(block[kBytes - 1], 1);
}

}  // namespace
}  // namespace tfipu_bench
