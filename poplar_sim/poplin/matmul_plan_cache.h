// MatMulPlanCache: planMatMul's answers, remembered by what the planner reads.
//
//   MatMulPlanCache& cache = MatMulPlanCache::global();
//   absl::StatusOr<MatMulPlan> p = cache.plan(target, numTiles, FLOAT, m, k, n, 0.6);
//
// A graph with thousands of matmuls of one shape (a deep stack of equal
// layers) would otherwise search the same split space once per matmul. The
// key is every input planMatMul's result depends on: the tile count, type,
// m, k, n, the memory proportion, and the target's figures the planner uses
// (bytes per tile, workers, exchange bandwidth, one-IPU sync, MACs per cycle
// of the type, float vector width). Targets that agree on those get the same
// plan from the planner, so a hit returns exactly what planMatMul would.
// Errors (ResourceExhausted) are remembered too. Thread-safe.
#ifndef POPLAR_SIM_POPLIN_MATMUL_PLAN_CACHE_H_
#define POPLAR_SIM_POPLIN_MATMUL_PLAN_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "poplar_sim/poplin/matmul.h"
#include "poplar_sim/target.h"
#include "poplar_sim/type.h"

namespace poplar_sim {
namespace poplin {

class MatMulPlanCache {
 public:
  // At most this many plans are kept; when full the cache starts afresh
  // (shapes in one program are few; this only bounds a pathological sweep).
  static constexpr size_t kMaxEntries = 4096;

  // The cache poplin::matMul uses.
  static MatMulPlanCache& global();

  // planMatMul(target, numTiles, type, m, k, n, availableMemoryProportion),
  // computed once per distinct key.
  absl::StatusOr<MatMulPlan> plan(const Target& target, unsigned numTiles, Type type,
                                  size_t m, size_t k, size_t n,
                                  double availableMemoryProportion);

  // Calls answered from the cache, and calls that ran the planner.
  uint64_t hits() const;
  uint64_t misses() const;
  size_t size() const;

 private:
  // (bytesPerTile, workers, exchange bytes/cycle, sync cycles, MACs/cycle,
  //  float vector width, numTiles, type, m, k, n, proportion)
  using Key = std::tuple<uint64_t, unsigned, unsigned, uint64_t, unsigned, unsigned,
                         unsigned, int, size_t, size_t, size_t, double>;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<Key, absl::StatusOr<MatMulPlan>> plans_ ABSL_GUARDED_BY(mu_);
  uint64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace poplin
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPLIN_MATMUL_PLAN_CACHE_H_
