// HugePageVector<T>: a std::vector whose buffer, from 2 MB up, is in huge
// pages (tensorflow_ipu/core/large_buffer.h), as the library's own large
// tensors are. The benchmarks keep their datasets in
// it, so that the peers, which read the images where the benchmark holds
// them, read them through 2 MB pages as the library's contestants do: on the
// benchmark VMs a GEMM reading a batch through 4 KB pages paid for the page
// walks in one step in ten (docs/PERFORMANCE.md), and the peers should not.
//
//   HugePageVector<float> images(60000 * 784);
#ifndef TOOLS_BENCH_HUGE_PAGE_VECTOR_H_
#define TOOLS_BENCH_HUGE_PAGE_VECTOR_H_

#include <cstddef>
#include <new>
#include <vector>

#include "tensorflow_ipu/core/large_buffer.h"

namespace tfipu_bench {

template <typename T>
struct LargeBufferAllocator {
  using value_type = T;
  LargeBufferAllocator() = default;
  template <typename U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);  // std::vector checked n against max_size()
    if (bytes < tensorflow_ipu::kLargeBufferBytes) {
      return static_cast<T*>(::operator new(bytes));
    }
    void* p = tensorflow_ipu::AllocateLargeBuffer(bytes);
    if (p == nullptr) throw std::bad_alloc();  // as operator new does
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < tensorflow_ipu::kLargeBufferBytes) {
      ::operator delete(p);
    } else {
      tensorflow_ipu::FreeLargeBuffer(p);
    }
  }
  template <typename U>
  bool operator==(const LargeBufferAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const LargeBufferAllocator<U>&) const {
    return false;
  }
};

template <typename T>
using HugePageVector = std::vector<T, LargeBufferAllocator<T>>;

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_HUGE_PAGE_VECTOR_H_
