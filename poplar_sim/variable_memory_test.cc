#include "poplar_sim/variable_memory.h"

#include <cstdint>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "poplar_sim/huge_page_allocator.h"

namespace poplar_sim {
namespace internal {
namespace {

bool AllZero(const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

// Each variable has a zeroed buffer of its own, on a 64-byte boundary and
// apart from the others' cache lines; a variable of no bytes included.
TEST(VariableMemoryTest, BuffersAreZeroedAlignedAndApart) {
  const std::vector<size_t> bytes = {400, 0, 1, 65, 0, 4096};
  VariableMemory m;
  ASSERT_TRUE(m.allocate(bytes)) << "the host gave no block for these sizes";
  EXPECT_FALSE(m.inHugePages());
  std::set<uintptr_t> lines;
  for (size_t v = 0; v < bytes.size(); ++v) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(m.buffer(v));
    EXPECT_EQ(p % kVariableAlignment, 0u) << v;
    EXPECT_TRUE(AllZero(m.buffer(v), bytes[v])) << v;
    const size_t n = bytes[v] == 0 ? 1 : bytes[v];
    for (uintptr_t line = p / 64; line <= (p + n - 1) / 64; ++line) {
      EXPECT_TRUE(lines.insert(line).second) << "variable " << v << " shares a cache line";
    }
    std::memset(m.buffer(v), static_cast<int>(v + 1), n);
  }
  // Writing each to its last byte left the others as written.
  for (size_t v = 0; v < bytes.size(); ++v) {
    EXPECT_EQ(m.buffer(v)[0], static_cast<char>(v + 1)) << v;
  }
}

// A block of 1 MB or more is in whole huge pages, aligned to one, zeroed
// and writable to its last byte.
TEST(VariableMemoryTest, LargeBlocksTakeHugePages) {
  const std::vector<size_t> bytes = {800 * 1024, 100, 300 * 1024};
  VariableMemory m;
  ASSERT_TRUE(m.allocate(bytes)) << "the host gave no block for these sizes";
  EXPECT_TRUE(m.inHugePages());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.buffer(0)) % kHugePageBytes, 0u);
  EXPECT_GE(m.blockBytes(), 800 * 1024 + 64 + 300 * 1024u);
  for (size_t v = 0; v < bytes.size(); ++v) {
    EXPECT_TRUE(AllZero(m.buffer(v), bytes[v])) << v;
  }
  m.buffer(2)[bytes[2] - 1] = 7;
  EXPECT_EQ(m.buffer(2)[bytes[2] - 1], 7);
  EXPECT_EQ(m.buffer(0)[bytes[0] - 1], 0);
}

// Sizes whose total no size_t can count are refused, leaving no buffers;
// the memory can then be allocated again.
TEST(VariableMemoryTest, ImpossibleTotalsAreRefused) {
  VariableMemory m;
  ASSERT_TRUE(m.allocate({16})) << "the host gave no block for {16}";
  EXPECT_FALSE(m.allocate({SIZE_MAX / 2, SIZE_MAX / 2, 4096}));
  EXPECT_EQ(m.blockBytes(), 0u);
  EXPECT_FALSE(m.allocate({SIZE_MAX}));
  ASSERT_TRUE(m.allocate({8, 8})) << "the host gave no block for {8, 8}";
  EXPECT_EQ(m.buffer(1) - m.buffer(0), 64);
}

// Moved, the buffers go with the block (the sanitizers' build checks that
// each block is freed once).
TEST(VariableMemoryTest, MovesKeepTheBuffers) {
  VariableMemory a;
  ASSERT_TRUE(a.allocate({2u << 20, 10})) << "the host gave no block for {2u << 20, 10}";
  char* w = a.buffer(1);
  w[0] = 5;
  VariableMemory b(std::move(a));
  EXPECT_EQ(b.buffer(1), w);
  EXPECT_EQ(b.buffer(1)[0], 5);
  EXPECT_EQ(a.blockBytes(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  VariableMemory c;
  ASSERT_TRUE(c.allocate({4})) << "the host gave no block for {4}";
  c = std::move(b);
  EXPECT_EQ(c.buffer(1)[0], 5);
  EXPECT_TRUE(c.inHugePages());
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
