#include "tensorflow_ipu/core/large_buffer.h"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace {

// The VmFlags line of /proc/self/smaps for the mapping holding `p`, or ""
// if none does.
std::string VmFlagsOf(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= addr && addr < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

// A large buffer starts on a 2 MB boundary, is writable to its last byte
// and is advised to use huge pages ("hg" in its VmFlags).
TEST(LargeBufferTest, AlignedZeroedWritableAndAdvised) {
  const size_t bytes = 3 * kLargeBufferBytes + 12345;
  char* p = static_cast<char*>(AllocateLargeBuffer(bytes));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kLargeBufferBytes, 0u);
  std::memset(p, 7, bytes);
  EXPECT_EQ(p[bytes - 1], 7);
  const std::string flags = VmFlagsOf(p);
  ASSERT_FALSE(flags.empty()) << "no mapping holds the buffer";
  // A kernel built without transparent huge pages refuses the advice (the
  // memory is then ordinary memory); any other takes it, whatever its mode.
  if (::access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0) {
    EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
  } else {
    EXPECT_EQ(flags.find(" hg"), std::string::npos) << flags;
  }
  FreeLargeBuffer(p);
}

// Sizes that cannot be given (none at all, or past the address space once
// aligned) are refused rather than given short.
TEST(LargeBufferTest, ImpossibleSizesAreRefused) {
  EXPECT_EQ(AllocateLargeBuffer(0), nullptr);
  EXPECT_EQ(AllocateLargeBuffer(SIZE_MAX), nullptr);
  EXPECT_EQ(AllocateLargeBuffer(SIZE_MAX - kLargeBufferBytes), nullptr);
  FreeLargeBuffer(nullptr);  // a no-op, as free(nullptr)
}

}  // namespace
}  // namespace tensorflow_ipu
