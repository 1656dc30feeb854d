// Running a subset of a replicated graph's replicas in this process, the
// others in other processes (Poplar's runtime replica subset:
// target.firstRuntimeReplica / numberRuntimeReplica with
// syncReplicasIndependently).
//
//   auto exchange = std::make_shared<MyExchange>(...);  // e.g. over MPI
//   POPLAR_SIM_RETURN_IF_ERROR(engine.setRuntimeReplicaSubset(
//       {/*globalReplicationFactor=*/4, /*firstReplica=*/2, exchange}));
//
// The engine's graph is built for its local replicas (its replication
// factor); the subset says where they sit among all of them. Replica r of
// the engine then reads firstReplica + r from a replication index constant,
// and a cross-replica reduction spans every process: each engine gathers
// its replicas' values, the exchange gives every process all of them in
// global replica order, and each engine reduces them itself in that order,
// so the result is bit-identical to one engine running every replica.
// poplar_sim knows nothing of processes: the exchange is the caller's.
#ifndef POPLAR_SIM_REPLICA_SUBSET_H_
#define POPLAR_SIM_REPLICA_SUBSET_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace poplar_sim {

// Moves the replicas' values between the processes of a job.
class CrossInstanceExchange {
 public:
  virtual ~CrossInstanceExchange() = default;
  // Every process calls this, in the same order, with its local replicas'
  // values (local.size() bytes each, the same on every process); `global`
  // gets every process's, in global replica order (first replica first).
  // `what` names the transfer for errors ("cross-replica reduction 'x'"; a
  // process that never arrives must be an error naming it, not a hang).
  virtual absl::Status allGather(absl::Span<const char> local, absl::Span<char> global,
                                 const std::string& what) = 0;
};

// The network between the hosts of a job's processes, as the cost model
// sees it. The defaults are one 100 Gbit/s Ethernet link per host (the
// line rate of 100GBASE Ethernet, the kind of RoCE link an IPU-POD's
// hosts and gateways use), at about 3 us per message (RDMA over such a
// link; TCP through the kernel takes tens of microseconds).
struct HostNetwork {
  double bytesPerSecond = 12.5e9;
  double latencySeconds = 3e-6;
};

struct RuntimeReplicaSubset {
  // All the replicas of the job, and the global index of this engine's
  // first one. 0: not distributed (every replica is local).
  unsigned globalReplicationFactor = 0;
  unsigned firstReplica = 0;
  std::shared_ptr<CrossInstanceExchange> exchange;
  // What a cross-replica reduction that spans processes costs beyond its
  // local part: a ring over the processes it spans (reduce-scatter, then
  // all-gather), 2 (n - 1) / n x bytes sent by each over the network and
  // 2 (n - 1) messages of latency, on every IPU of the reduction, in the
  // profile as networkCycles and networkBytes.
  HostNetwork network;
};

}  // namespace poplar_sim

#endif  // POPLAR_SIM_REPLICA_SUBSET_H_
