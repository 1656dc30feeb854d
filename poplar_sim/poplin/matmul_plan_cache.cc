#include "poplar_sim/poplin/matmul_plan_cache.h"

namespace poplar_sim {
namespace poplin {

MatMulPlanCache& MatMulPlanCache::global() {
  static MatMulPlanCache* cache = new MatMulPlanCache();
  return *cache;
}

absl::StatusOr<MatMulPlan> MatMulPlanCache::plan(const Target& target, unsigned numTiles,
                                                 Type type, size_t m, size_t k, size_t n,
                                                 double availableMemoryProportion) {
  const Key key{target.getBytesPerTile(),        target.getNumWorkerContexts(),
                target.getExchangeBytesPerCycle(), target.syncCycles(1),
                target.getMacsPerCycle(type),    target.getVectorWidth(FLOAT),
                numTiles,                        static_cast<int>(type),
                m,                               k,
                n,                               availableMemoryProportion};
  {
    absl::MutexLock lock(&mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) {
      ++hits_;
      return it->second;
    }
  }
  // Planned outside the lock: two threads may both plan a new key; they get
  // the same answer, and the second insert is a no-op.
  absl::StatusOr<MatMulPlan> p =
      planMatMul(target, numTiles, type, m, k, n, availableMemoryProportion);
  absl::MutexLock lock(&mu_);
  ++misses_;
  if (plans_.size() >= kMaxEntries) plans_.clear();
  plans_.emplace(key, p);
  return p;
}

uint64_t MatMulPlanCache::hits() const {
  absl::MutexLock lock(&mu_);
  return hits_;
}

uint64_t MatMulPlanCache::misses() const {
  absl::MutexLock lock(&mu_);
  return misses_;
}

size_t MatMulPlanCache::size() const {
  absl::MutexLock lock(&mu_);
  return plans_.size();
}

}  // namespace poplin
}  // namespace poplar_sim
