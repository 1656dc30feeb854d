// The most host memory one Batch may take: half of the machine's, since a
// batch's elements are collected and then stacked into a second copy.
// Dataset's Batch refuses larger batches with ResourceExhausted instead of
// collecting until the host runs out of memory.
#ifndef TENSORFLOW_IPU_DATA_BATCH_MEMORY_LIMIT_H_
#define TENSORFLOW_IPU_DATA_BATCH_MEMORY_LIMIT_H_

#include <cstdint>

namespace tensorflow_ipu {
namespace data {
namespace internal {

// The limit in bytes; 0 if the machine's memory is unknown (no limit).
uint64_t MaxBatchBytes();

// Tests lower the limit to reach it without using the memory; 0 restores
// the machine's.
void SetMaxBatchBytesForTest(uint64_t bytes);

}  // namespace internal
}  // namespace data
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DATA_BATCH_MEMORY_LIMIT_H_
