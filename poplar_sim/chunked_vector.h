// ChunkedVector: an append-only array stored in fixed-size chunks.
// Internal to poplar_sim.
//
// The graph's per-vertex tables grow to millions of entries one push at a
// time. A std::vector doubles its buffer as it grows, so at its peak it
// holds the old buffer, the new one (twice the size) and its unused tail:
// up to three times the data. Here only the first chunk grows like a
// vector (so a small graph stays small); every later chunk is reserved at
// its full size and never moves, so a large array wastes at most one partly
// filled chunk and never copies its elements. A chunk holds as many
// elements as fit in one 2 MB huge page, and full-size chunks come from
// HugePageAllocator: touching a large graph's tables page by page cost
// seconds of page faults on the project's VMs.
//
//   ChunkedVector<int> v;
//   v.push_back(3);
//   v[0];  // 3
#ifndef POPLAR_SIM_CHUNKED_VECTOR_H_
#define POPLAR_SIM_CHUNKED_VECTOR_H_

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "poplar_sim/huge_page_allocator.h"

namespace poplar_sim {
namespace internal {

// kChunkSize: elements per chunk (tests use small ones).
template <typename T,
          size_t kChunkSize = (kHugePageBytes / sizeof(T) > 0 ? kHugePageBytes / sizeof(T) : 1)>
class ChunkedVector {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t i) { return chunks_[i / kChunkSize][i % kChunkSize]; }
  const T& operator[](size_t i) const { return chunks_[i / kChunkSize][i % kChunkSize]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(T value) {
    if (chunks_.empty() || chunks_.back().size() == kChunkSize) {
      chunks_.emplace_back();
      if (chunks_.size() > 1) chunks_.back().reserve(kChunkSize);
    } else if (chunks_.size() == 1 && chunks_[0].size() == chunks_[0].capacity()) {
      // The first chunk doubles, but never past a chunk's size.
      chunks_[0].reserve(std::min(kChunkSize, 2 * chunks_[0].capacity()));
    }
    chunks_.back().push_back(std::move(value));
    ++size_;
  }
  // Removes the last elements, keeping the first `n`.
  void truncate(size_t n) {
    while (size_ > n) {
      chunks_.back().pop_back();
      if (chunks_.back().empty() && chunks_.size() > 1) chunks_.pop_back();
      --size_;
    }
  }

 private:
  std::vector<std::vector<T, HugePageAllocator<T>>> chunks_;
  size_t size_ = 0;
};

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_CHUNKED_VECTOR_H_
