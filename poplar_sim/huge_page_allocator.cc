#include "poplar_sim/huge_page_allocator.h"

#include <sys/mman.h>

#include <cstdint>

// Older C libraries' headers lack it; kernels before 5.14 refuse it, which
// only leaves the pages to be made present on first touch.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace poplar_sim {
namespace internal {
namespace {

size_t RoundUp(size_t bytes) { return (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1); }

}  // namespace

void* AllocateHugePages(size_t bytes) {
  // Rounding up, and the spare huge page, must not wrap around.
  if (bytes > SIZE_MAX - 2 * kHugePageBytes) return nullptr;
  const size_t size = RoundUp(bytes);
  // Mapped with a huge page to spare, then trimmed to an aligned range:
  // only whole aligned 2 MB ranges can be huge pages.
  void* raw = ::mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePageBytes - 1) & ~uintptr_t{kHugePageBytes - 1};
  if (aligned > start) ::munmap(raw, aligned - start);
  const uintptr_t end = start + size + kHugePageBytes;
  if (end > aligned + size) ::munmap(reinterpret_cast<void*>(aligned + size), end - aligned - size);
  void* p = reinterpret_cast<void*>(aligned);
  ::madvise(p, size, MADV_HUGEPAGE);
  ::madvise(p, size, MADV_POPULATE_WRITE);
  return p;
}

void FreeHugePages(void* p, size_t bytes) {
  if (p != nullptr) ::munmap(p, RoundUp(bytes));
}

}  // namespace internal
}  // namespace poplar_sim
