// VariableMemory: the host memory that stands for one replica's device
// memory: every variable's buffer in one zeroed block, each starting on a
// 64-byte boundary (two variables never share a cache line, so host
// threads writing different variables do not contend, as they did not when
// each was its own allocation), and in 2 MB huge pages when the block is at
// least kMinHugeBlockBytes. Internal to the engine (engine_compile.cc).
//
// Why huge pages: a training step's products read their weights (the
// first layer's are 800 KB) from this memory every step; in 4 KB pages on
// the benchmark VMs each page's first access in a step costs a walk of two
// levels of page tables. train_mlp's IPU loop gained 4% with the large
// variables in huge pages (docs/PERFORMANCE.md). A block of 1 MB or more is
// rounded up to whole huge pages: at most one more than it fills, so never
// twice its size; a smaller one is ordinary memory.
//
//   VariableMemory m;
//   if (!m.allocate({400, 800000, 0})) ... the host has no memory for it ...
//   float* w = reinterpret_cast<float*>(m.buffer(1));
#ifndef POPLAR_SIM_VARIABLE_MEMORY_H_
#define POPLAR_SIM_VARIABLE_MEMORY_H_

#include <cstddef>
#include <vector>

namespace poplar_sim {
namespace internal {

inline constexpr size_t kVariableAlignment = 64;
inline constexpr size_t kMinHugeBlockBytes = size_t{1} << 20;

class VariableMemory {
 public:
  VariableMemory() = default;
  ~VariableMemory() { release(); }
  VariableMemory(VariableMemory&& other) noexcept { *this = std::move(other); }
  VariableMemory& operator=(VariableMemory&& other) noexcept;
  VariableMemory(const VariableMemory&) = delete;
  VariableMemory& operator=(const VariableMemory&) = delete;

  // Replaces the buffers with zeroed ones of bytes[v] bytes for variable v
  // (a variable of no bytes still gets a buffer of its own). False, with
  // no buffers, when the total does not fit in a size_t or the host cannot
  // give it.
  bool allocate(const std::vector<size_t>& bytes);
  char* buffer(size_t v) const { return block_ + offsets_[v]; }
  // The block's bytes (the buffers and their padding).
  size_t blockBytes() const { return blockBytes_; }
  bool inHugePages() const { return huge_; }

 private:
  void release();

  char* block_ = nullptr;
  size_t blockBytes_ = 0;
  bool huge_ = false;
  std::vector<size_t> offsets_;
};

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_VARIABLE_MEMORY_H_
