// HugePageAllocator: a std::allocator for a few large arrays that are
// filled once, such as the graph's per-vertex tables (ChunkedVector's
// chunks). Internal to poplar_sim.
//
// A 100,000-node graph touches about 2 GB of fresh memory while it is
// built and compiled, and on the KVM/PVM machines each first touch of a
// 4 KB page costs a fault of about 12 us (512 MB took 1.57 s to touch page
// by page, 0.03 s as 2 MB huge pages made present at once). So a request of
// about a huge page or more is mapped on its own, aligned to 2 MB, advised to
// use huge pages (MADV_HUGEPAGE: the kernel's transparent huge pages in
// "madvise" mode, as on these machines) and made present in one call
// (MADV_POPULATE_WRITE, Linux 5.14). Both are hints: without them the
// memory is ordinary anonymous memory. Smaller requests (under
// kMinHugePageRequest) go to operator new.
//
//   std::vector<Slot, HugePageAllocator<Slot>> slots;
//   slots.reserve(kHugePageBytes / sizeof(Slot));  // one huge page
#ifndef POPLAR_SIM_HUGE_PAGE_ALLOCATOR_H_
#define POPLAR_SIM_HUGE_PAGE_ALLOCATOR_H_

#include <cstddef>
#include <new>

namespace poplar_sim {
namespace internal {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;
// A request of at least this much gets its own huge pages: a chunk of as
// many elements as fit in one huge page falls short of it by less than one
// element, while a vector growing by doubling through the size range stays
// with operator new until it is nearly a huge page (no huge page half
// filled, which would count in full in the process's memory).
inline constexpr size_t kMinHugePageRequest = kHugePageBytes - kHugePageBytes / 64;

// `bytes` of zeroed memory in whole huge pages, aligned to kHugePageBytes,
// or nullptr if the system has no address space left.
void* AllocateHugePages(size_t bytes);
// Frees what AllocateHugePages returned for the same `bytes`.
void FreeHugePages(void* p, size_t bytes);

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  // (std::vector checks n against max_size() before it asks.)
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kMinHugePageRequest) return static_cast<T*>(::operator new(bytes));
    void* p = AllocateHugePages(bytes);
    if (p == nullptr) throw std::bad_alloc();  // as operator new does
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kMinHugePageRequest) {
      ::operator delete(p);
    } else {
      FreeHugePages(p, bytes);
    }
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const {
    return false;
  }
};

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_HUGE_PAGE_ALLOCATOR_H_
