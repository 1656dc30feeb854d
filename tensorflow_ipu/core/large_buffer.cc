#include "tensorflow_ipu/core/large_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace tensorflow_ipu {
namespace {

size_t PageSize() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

// The mapping of a buffer of `bytes`: whole small pages.
size_t MappedBytes(size_t bytes) {
  const size_t page = PageSize();
  return (bytes + page - 1) / page * page;
}

}  // namespace

void* AllocateLargeBuffer(size_t bytes) {
  // Rounding up and the alignment slack must not wrap around.
  if (bytes == 0 || bytes > SIZE_MAX - 2 * kLargeBufferBytes) return nullptr;
  const size_t size = MappedBytes(bytes);
  // Mapped with 2 MB to spare, then trimmed to a range starting on a 2 MB
  // boundary: mmap aligns to small pages only.
  void* raw = ::mmap(nullptr, size + kLargeBufferBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kLargeBufferBytes - 1) & ~uintptr_t{kLargeBufferBytes - 1};
  if (aligned > start) ::munmap(raw, aligned - start);
  const uintptr_t end = start + size + kLargeBufferBytes;
  if (end > aligned + size) ::munmap(reinterpret_cast<void*>(aligned + size), end - aligned - size);
  void* p = reinterpret_cast<void*>(aligned);
  ::madvise(p, size, MADV_HUGEPAGE);  // a hint; failing leaves small pages
  return p;
}

void FreeLargeBuffer(void* p, size_t bytes) {
  if (p != nullptr) ::munmap(p, MappedBytes(bytes));
}

}  // namespace tensorflow_ipu
