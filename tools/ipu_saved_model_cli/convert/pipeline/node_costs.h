// What a profiled run cost, per node of the serving graph and per IPU, read
// from poplar_sim's profile.json (docs/poplar_sim.md). The lowering names
// every program step and compute set after the node it lowers ("dense_0/
// MatMul"; a copy between IPUs "dense_1/MatMul/copy_0_to_ipu_1"), so a step
// belongs to the graph node whose name is its longest prefix at a "/".
//
//   ASSIGN_OR_RETURN(ProfileSummary p, SummarizeProfiles(run.profiles, graph));
//   std::vector<int64_t> cycles = ComputeNodeCosts(p, graph, CostKind::kCycles);
//
// Per node:
//  - cycles: the total cycles of its Execute steps (its compute sets), all
//    executions; copies between IPUs and host streams depend on the split,
//    not on the node, and are left out;
//  - memory: the vertex state and exchange buffers of its compute sets,
//    plus the bytes of the constants it reads (directly or through
//    Identity/Pack; a constant read by several nodes counts for the first
//    in topological order), which live on its IPU. Activations are not
//    attributed (the simulator reports their liveness per step, not per
//    node).
// A compute node without an entry gets the mean of the nodes of its op type
// that have one, else 500 cycles (the original's fallback) or 0 bytes.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_NODE_COSTS_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_NODE_COSTS_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/serving_graph.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

struct ProfileSummary {
  std::map<std::string, int64_t> node_cycles;        // nodes with Execute steps
  std::map<std::string, int64_t> node_vertex_bytes;  // nodes with compute sets
  // Per IPU of the device: cycles of the Execute steps that ran on it alone
  // (what its pipeline stage computed), and its memory in use (all tiles,
  // all categories).
  std::vector<int64_t> ipu_execute_cycles;
  std::vector<int64_t> ipu_memory_bytes;
  int64_t ipu_capacity_bytes = 0;  // bytesPerTile * tilesPerIPU
};

// InvalidArgument naming the field when a profile lacks one.
absl::StatusOr<ProfileSummary> SummarizeProfiles(const std::vector<nlohmann::json>& profiles,
                                                 const ServingGraph& graph);

enum class CostKind { kCycles, kMemory };

// One cost per node of graph.compute_order(), by the rules above.
std::vector<int64_t> ComputeNodeCosts(const ProfileSummary& profile, const ServingGraph& graph,
                                      CostKind kind);

// The bytes of a Const node's value (0 for other nodes or a bad value).
int64_t ConstBytes(const NodeDef& node);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_NODE_COSTS_H_
