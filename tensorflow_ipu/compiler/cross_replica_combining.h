// CrossReplicaCombining: independent cross-replica reductions of a step are
// made one reduction of their concatenation, up to a byte budget, as the
// vendor's backend schedules them when IPUConfig's
// optimizations.maximum_cross_replica_sum_buffer_size is set (its scheduler
// lets reductions wait until that many bytes are pending, and its
// CombineInstructions pass merges the reductions that then sit side by
// side). One all-reduce of the whole buffer pays the ring's 2(R - 1) syncs
// and link latencies once instead of once per gradient; the reduced values
// are the same, element by element.
//
// Combined: IpuCrossReplicaSum / IpuCrossReplicaMean ops with the same
// operator, dtype, replica_group_size, IPU, loop, pipeline unit and phase
// of gradient accumulation, none of which depends on another, taken in
// program order while their total size stays within `budget_bytes` (a
// reduction larger than the budget on its own stays alone). Each group of
// two or more becomes one op of kind kCombinedCrossReplicaOp
// (cluster_ir.h) with the members' inputs and outputs in program order and
// attrs "reduction" ("sum" or "mean") and "replica_group_size"; it takes
// the place of the group's last member, and what read an earlier member
// moves after it (the list stays topological and each loop contiguous).
// The members become NoOps that keep their names and wait for the combined
// op, so that control dependencies on them still hold.
//
// A budget of 0 (the vendor's default) or a cluster of one replica changes
// nothing. Only data and control edges order ops here: a read of a
// variable that no edge orders after a write moved by the pass may now
// come before it, as TensorFlow leaves the order of such ops open.
#ifndef TENSORFLOW_IPU_COMPILER_CROSS_REPLICA_COMBINING_H_
#define TENSORFLOW_IPU_COMPILER_CROSS_REPLICA_COMBINING_H_

#include <cstdint>

#include "tensorflow_ipu/compiler/pass.h"

namespace tensorflow_ipu {
namespace compiler {

class CrossReplicaCombining : public ClusterPass {
 public:
  explicit CrossReplicaCombining(int64_t budget_bytes) : budget_bytes_(budget_bytes) {}
  absl::string_view name() const override { return "cross-replica-combining"; }
  absl::StatusOr<bool> Run(ClusterIr* ir) override;

 private:
  int64_t budget_bytes_;
};

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_CROSS_REPLICA_COMBINING_H_
