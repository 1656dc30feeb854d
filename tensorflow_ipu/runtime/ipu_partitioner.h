// Partitioning a placed run into host nodes and IPU clusters.
//
// The IPU nodes of a run become clusters, one per IPU device and phase. The
// phase of a node counts how many times the values it depends on went from
// an IPU to the host (or to another IPU device, or another compile() call's
// cluster) and back: an IPU node that
// reads a host node which read IPU results goes into a later cluster than
// those results, so the partitioned graph stays acyclic. Formally, in
// topological order, level(n) is the maximum over n's data and control
// predecessors p of level(p), plus one when p is on an IPU and n is on the
// host, on another IPU device or in another compile() call. A cluster is the
// set of IPU nodes of one device, one level and one compile() call (ops under
// ipu_scope outside compile() form their own clusters). A cluster of
// pass-through ops only (reads of variables, Identity, NoOp, Const) runs on
// the host instead: it is not worth an engine.
//
// The partitioned graph is the original graph plus, per cluster, one
// "_IpuCluster" node (its inputs: the host values and other clusters'
// results it reads, grouped by dtype) and one "_IpuClusterOutput" node per
// result; the run's host nodes, fetches and targets are rewired to them, so
// the original IPU nodes are no longer reached and the executor prunes them.
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_PARTITIONER_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_PARTITIONER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/compiler/cluster_ir.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/proto/graph.pb.h"
#include "tensorflow_ipu/runtime/placer.h"

namespace tensorflow_ipu {

struct IpuClusterPlan {
  compiler::ClusterIr ir;   // arguments grouped by dtype (ClusterInputGroups)
  int ipu_ordinal = 0;
  std::string node_name;    // its "_IpuCluster" node in the partitioned graph
};

struct PartitionedRun {
  GraphDef graph;
  std::vector<IpuClusterPlan> clusters;  // in a valid execution order
  // The fetches and targets of the run, as names in `graph`.
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

// `needed` are the run's nodes (NeededNodes), `placement` their devices.
// Errors: a fed tensor produced on an IPU (Unimplemented), a value of a
// cluster without a static shape (InvalidArgument naming the tensor).
absl::StatusOr<PartitionedRun> PartitionForIpu(
    const Graph& graph, const std::vector<TensorRef>& feeds,
    const std::vector<TensorRef>& fetches,
    const std::vector<const Node*>& targets,
    const std::vector<const Node*>& needed, const Placement& placement);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_PARTITIONER_H_
