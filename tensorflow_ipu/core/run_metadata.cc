#include "tensorflow_ipu/core/run_metadata.h"

#include <utility>

namespace tensorflow_ipu {

void RunCollector::AddNodeStats(NodeExecStats stats) {
  absl::MutexLock lock(&mu_);
  metadata_.step_stats.node_stats.push_back(std::move(stats));
}

void RunCollector::AddIpuCluster(IpuClusterProfile p) {
  absl::MutexLock lock(&mu_);
  IpuRunProfile& profile = metadata_.ipu_profile;
  profile.total_cycles += p.cycles;
  profile.total_seconds += p.seconds + p.load_seconds + p.variable_seconds;
  profile.engine_loads += p.engine_loads;
  profile.engine_switches += p.engine_switched ? 1 : 0;
  profile.clusters.push_back(std::move(p));
}

RunMetadata RunCollector::Finish() {
  absl::MutexLock lock(&mu_);
  return std::move(metadata_);
}

}  // namespace tensorflow_ipu
