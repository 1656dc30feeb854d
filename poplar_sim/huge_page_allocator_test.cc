#include "poplar_sim/huge_page_allocator.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace poplar_sim {
namespace internal {
namespace {

// A large request is whole huge pages, aligned, zeroed and writable to its
// last byte.
TEST(HugePageAllocatorTest, LargeBlocksAreAlignedZeroedAndWritable) {
  const size_t bytes = kHugePageBytes + 12345;
  char* p = static_cast<char*>(AllocateHugePages(bytes));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePageBytes, 0u);
  for (size_t i = 0; i < bytes; i += 4096) ASSERT_EQ(p[i], 0) << i;
  EXPECT_EQ(p[bytes - 1], 0);
  std::memset(p, 7, bytes);
  EXPECT_EQ(p[bytes - 1], 7);
  FreeHugePages(p, bytes);
}

// A size whose rounding would wrap around is refused, not mapped short.
TEST(HugePageAllocatorTest, ImpossibleSizesAreRefused) {
  EXPECT_EQ(AllocateHugePages(SIZE_MAX), nullptr);
  EXPECT_EQ(AllocateHugePages(SIZE_MAX - kHugePageBytes), nullptr);
}

// A vector on it keeps its values as it grows from small buffers (operator
// new) into huge pages and is freed either way (the sanitizers' build
// checks the frees).
TEST(HugePageAllocatorTest, VectorGrowsAcrossTheThreshold) {
  std::vector<uint64_t, HugePageAllocator<uint64_t>> v;
  const size_t n = 3 * kHugePageBytes / sizeof(uint64_t);
  for (size_t i = 0; i < n; ++i) v.push_back(i * 3);
  EXPECT_GE(v.capacity() * sizeof(uint64_t), kHugePageBytes);
  for (size_t i = 0; i < n; i += 997) ASSERT_EQ(v[i], i * 3) << i;
  EXPECT_EQ(v.back(), (n - 1) * 3);
  v.clear();
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 0u);
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
