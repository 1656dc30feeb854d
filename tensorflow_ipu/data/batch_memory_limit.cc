#include "tensorflow_ipu/data/batch_memory_limit.h"

#include <unistd.h>

#include <atomic>

namespace tensorflow_ipu {
namespace data {
namespace internal {
namespace {

std::atomic<uint64_t> limit_for_test{0};

uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

}  // namespace

uint64_t MaxBatchBytes() {
  const uint64_t test = limit_for_test.load(std::memory_order_relaxed);
  return test != 0 ? test : PhysicalMemoryBytes() / 2;
}

void SetMaxBatchBytesForTest(uint64_t bytes) {
  limit_for_test.store(bytes, std::memory_order_relaxed);
}

}  // namespace internal
}  // namespace data
}  // namespace tensorflow_ipu
