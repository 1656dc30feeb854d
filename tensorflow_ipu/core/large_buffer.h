// Host memory for large tensor buffers (a dataset held in memory, a batch of
// images for a whole loop): mapped on its own, aligned to 2 MB and advised
// to use transparent huge pages, as PyTorch's CPU allocator can do for
// buffers of 2 MB or more.
//
// Why: on the virtual machines the benchmarks run on, a GEMM reading a
// training loop's images straight from a 188 MB dataset tensor in 4 KB pages
// took three times its median time in one step in ten (the page walks of
// two levels of page tables), and whole training steps were about 10%
// slower than with the same memory in 2 MB pages (docs/PERFORMANCE.md). A
// huge page is also one fault where 512 small ones each cost about 12 us on
// these machines.
//
// MADV_HUGEPAGE is a hint: with transparent huge pages disabled, or past a
// size the kernel will not back, the memory is ordinary anonymous memory.
// Only whole aligned 2 MB ranges inside the mapping can be huge pages, so the
// mapping is never rounded up to one: a buffer of 3 MB is one huge page and
// 1 MB of small ones, and costs nothing over its size. Not zeroed beyond what
// the kernel gives (fresh anonymous memory reads as zeros).
//
//   void* p = AllocateLargeBuffer(bytes);  // bytes >= kLargeBufferBytes
//   ...
//   FreeLargeBuffer(p, bytes);
#ifndef TENSORFLOW_IPU_CORE_LARGE_BUFFER_H_
#define TENSORFLOW_IPU_CORE_LARGE_BUFFER_H_

#include <cstddef>

namespace tensorflow_ipu {

// Buffers of at least this many bytes are large: one huge page.
inline constexpr size_t kLargeBufferBytes = size_t{2} << 20;

// `bytes` of memory aligned to kLargeBufferBytes, or nullptr when the
// system has no address space or memory left.
void* AllocateLargeBuffer(size_t bytes);
// Unmaps what AllocateLargeBuffer returned for the same `bytes`.
void FreeLargeBuffer(void* p, size_t bytes);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_LARGE_BUFFER_H_
