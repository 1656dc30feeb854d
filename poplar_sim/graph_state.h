// The shared state behind a Graph and its virtual graphs. Internal to
// poplar_sim: the Engine reads it; users go through Graph.
#ifndef POPLAR_SIM_GRAPH_STATE_H_
#define POPLAR_SIM_GRAPH_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/target.h"
#include "poplar_sim/tensor.h"
#include "poplar_sim/tile_mapping.h"
#include "poplar_sim/vertex_store.h"

namespace poplar_sim {
namespace internal {

struct VariableRecord {
  std::shared_ptr<const std::string> name;
  Type type = FLOAT;
  std::vector<size_t> shape;
  int64_t numElements = 0;
  bool isConstant = false;
  // Graph::addReplicationIndexConstant: each replica's copy holds its index.
  bool isReplicationIndex = false;
  std::vector<char> constantData;  // numElements * typeSize(type) bytes
  TileMapping mapping;             // global tile ids
};

struct ComputeSetRecord {
  std::string name;
  std::vector<unsigned> vertices;
  BulkExecutor bulk;
  ElementwiseExecutor elementwise;  // run is empty unless set
};

struct HostAccessRecord {
  Tensor tensor;
  bool isRead = false;
  bool isWrite = false;
};

struct GraphState {
  uint64_t id = 0;
  Target target;  // the whole (non-virtual) target of one replica
  // A replicated graph (Graph(target, replication_factor(R))) runs on R
  // replicas of `target`; the device it loads on has `deviceTarget`.
  unsigned replicationFactor = 1;
  Target deviceTarget;
  std::vector<VariableRecord> variables;
  VertexStore vertices;
  std::vector<ComputeSetRecord> computeSets;
  std::vector<DataStream> streams;
  std::map<std::string, unsigned> streamByHandle;
  std::map<std::string, HostAccessRecord> hostAccess;
  absl::Status status;
};

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_GRAPH_STATE_H_
