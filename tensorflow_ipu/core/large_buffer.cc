#include "tensorflow_ipu/core/large_buffer.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

namespace tensorflow_ipu {

void* AllocateLargeBuffer(size_t bytes) {
  if (bytes == 0 || bytes > SIZE_MAX - 2 * kLargeBufferBytes) return nullptr;
  // From the C library, not a mapping of its own: a buffer freed and asked
  // for again (a layer's activations, every step) is then reused as
  // malloc reuses it, rather than mapped, faulted in and unmapped each
  // time.
  void* p = nullptr;
  if (::posix_memalign(&p, kLargeBufferBytes, bytes) != 0) return nullptr;
  // A hint; failing leaves small pages. It stays on the address range when
  // the buffer is freed, so memory the C library hands out there again
  // gets huge pages too.
  ::madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

void FreeLargeBuffer(void* p) { std::free(p); }

}  // namespace tensorflow_ipu
