#include "poplar_sim/gcl/collectives.h"

#include "absl/strings/str_cat.h"

namespace poplar_sim::gcl {

Tensor allReduceCrossReplica(Graph& graph, const Tensor& data, CollectiveOperator op,
                             program::Sequence& prog, const CommGroup& group,
                             const std::string& debugName) {
  if (!data.valid()) return data;
  Tensor result = graph.clone(data, absl::StrCat(debugName, "/result"));
  allReduceToDestinationCrossReplica(graph, data, result, op, prog, group, debugName);
  return result;
}

void allReduceInPlaceCrossReplica(Graph& graph, const Tensor& data, CollectiveOperator op,
                                  program::Sequence& prog, const CommGroup& group,
                                  const std::string& debugName) {
  allReduceToDestinationCrossReplica(graph, data, data, op, prog, group, debugName);
}

void allReduceToDestinationCrossReplica(Graph& graph, const Tensor& data,
                                        const Tensor& destination, CollectiveOperator op,
                                        program::Sequence& prog, const CommGroup& group,
                                        const std::string& debugName) {
  if (!data.valid()) return graph.recordError(data.status());
  if (!destination.valid()) return graph.recordError(destination.status());
  // Checked here too (the engine checks again), to fail at the call.
  const unsigned r = graph.getReplicationFactor();
  // A multiple of it is a group spanning the replicas of several engines
  // (replica_subset.h); Engine::setRuntimeReplicaSubset checks it.
  if (group.replicaGroupSize != 0 && r % group.replicaGroupSize != 0 &&
      group.replicaGroupSize % r != 0) {
    graph.recordError(absl::InvalidArgumentError(absl::StrCat(
        "allReduceCrossReplica '", debugName, "': a replica group size of ",
        group.replicaGroupSize, " does not divide the graph's replication factor ", r,
        "; use a divisor of it (or 0 for all replicas)")));
    return;
  }
  prog.add(program::CrossReplicaReduce(data, destination, op, group.replicaGroupSize,
                                       debugName));
}

}  // namespace poplar_sim::gcl
