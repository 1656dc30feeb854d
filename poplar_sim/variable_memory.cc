#include "poplar_sim/variable_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "poplar_sim/huge_page_allocator.h"

namespace poplar_sim {
namespace internal {

VariableMemory& VariableMemory::operator=(VariableMemory&& other) noexcept {
  if (this != &other) {
    release();
    block_ = std::exchange(other.block_, nullptr);
    blockBytes_ = std::exchange(other.blockBytes_, 0);
    huge_ = std::exchange(other.huge_, false);
    offsets_ = std::move(other.offsets_);
    other.offsets_.clear();
  }
  return *this;
}

bool VariableMemory::allocate(const std::vector<size_t>& bytes) {
  release();
  std::vector<size_t> offsets(bytes.size());
  size_t total = 0;
  for (size_t v = 0; v < bytes.size(); ++v) {
    // At least one byte, so that every variable has an address of its own;
    // rounded up to the alignment. Checked: a variable may be far larger
    // than the host (debug.allowOutOfMemory).
    const size_t b = bytes[v] == 0 ? 1 : bytes[v];
    if (b > SIZE_MAX - total - kVariableAlignment) return false;
    offsets[v] = total;
    total += (b + kVariableAlignment - 1) / kVariableAlignment * kVariableAlignment;
  }
  if (total == 0) total = kVariableAlignment;
  char* block = nullptr;
  bool huge = false;
  if (total >= kMinHugeBlockBytes) {
    block = static_cast<char*>(AllocateHugePages(total));  // zeroed, aligned
    huge = block != nullptr;
  }
  // Smaller blocks, and any the kernel would not map as huge pages.
  if (block == nullptr) {
    block = static_cast<char*>(std::aligned_alloc(
        kVariableAlignment, total));  // total is a multiple of the alignment
    if (block == nullptr) return false;
    std::fill(block, block + total, 0);
  }
  block_ = block;
  blockBytes_ = total;
  huge_ = huge;
  offsets_ = std::move(offsets);
  return true;
}

void VariableMemory::release() {
  if (block_ != nullptr) {
    if (huge_) {
      FreeHugePages(block_, blockBytes_);
    } else {
      std::free(block_);
    }
  }
  block_ = nullptr;
  blockBytes_ = 0;
  huge_ = false;
  offsets_.clear();
}

}  // namespace internal
}  // namespace poplar_sim
