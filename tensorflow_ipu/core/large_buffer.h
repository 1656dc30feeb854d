// Host memory for large tensor buffers (a dataset held in memory, whose
// batches an infeed lends to the engine in place): aligned to 2 MB and
// advised to use transparent huge pages, as PyTorch's CPU allocator can do
// for buffers of 2 MB or more.
//
// Why: on the virtual machines the benchmarks run on, the first layer's
// product of a training loop, reading its batch straight from a 188 MB
// dataset tensor in 4 KB pages, took three times its median time in about
// one step in ten; with the dataset in huge pages that tail went
// (docs/PERFORMANCE.md). A huge page is also one fault where 512 small ones
// each cost about 12 us on these machines.
//
// The memory comes from the C library (posix_memalign, as PyTorch's
// allocator takes its huge-page buffers), so that a large buffer freed and
// asked for again every step is reused as malloc reuses memory, not mapped
// and faulted in anew. MADV_HUGEPAGE is a hint: with transparent huge pages
// disabled the memory is ordinary memory. Only whole aligned 2 MB ranges
// can be huge pages, so a buffer of 3 MB is one huge page and 1 MB of
// small ones, and costs nothing over its size.
//
//   void* p = AllocateLargeBuffer(bytes);  // bytes >= kLargeBufferBytes
//   ...
//   FreeLargeBuffer(p);
#ifndef TENSORFLOW_IPU_CORE_LARGE_BUFFER_H_
#define TENSORFLOW_IPU_CORE_LARGE_BUFFER_H_

#include <cstddef>

namespace tensorflow_ipu {

// Buffers of at least this many bytes are large: one huge page.
inline constexpr size_t kLargeBufferBytes = size_t{2} << 20;

// `bytes` of memory aligned to kLargeBufferBytes and advised to use huge
// pages, or nullptr when the system has no memory left (or bytes is 0).
void* AllocateLargeBuffer(size_t bytes);
// Frees what AllocateLargeBuffer returned (nothing for nullptr).
void FreeLargeBuffer(void* p);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_LARGE_BUFFER_H_
