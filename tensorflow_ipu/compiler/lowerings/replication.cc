// Lowerings of the replication ops: a cross-replica all-reduce (gcl), the
// all-reduce of several values that the cross-replica-combining pass made
// one, and the replication index constant. In a cluster that is not replicated
// (one replica) the reduction is a copy and the index is 0.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "poplar_sim/gcl/collectives.h"
#include "poplar_sim/popops/cast_fill.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

using poplar_sim::program::CollectiveOperator;

// The all-reduce of `data` over the replica groups the op's
// replica_group_size asks for: written over `data` when `in_place` (the
// op's inputs are dead afterwards: compiler/input_reuse.h), else into a
// new tensor.
absl::StatusOr<poplar_sim::Tensor> AllReduce(LoweringContext& ctx, const poplar_sim::Tensor& data,
                                             CollectiveOperator op, bool in_place) {
  ASSIGN_OR_RETURN(int64_t group, ctx.GetAttr<int64_t>("replica_group_size"));
  // Groups are over every replica of the job, those of other processes
  // included.
  const int64_t processes = ctx.ir().process_count;
  const int64_t replicas = ctx.graph().getReplicationFactor() * processes;
  if (group < 0 || (group > 0 && replicas % group != 0)) {
    return ctx.Error(absl::StrCat(
        "has replica_group_size ", group, ", which does not divide the replication factor ",
        replicas, " of its cluster (attached IPUs / shards",
        processes > 1 ? absl::StrCat(", x ", processes, " processes") : "",
        "); use a divisor of it, or 0 for all replicas"));
  }
  const poplar_sim::gcl::CommGroup comm_group{static_cast<unsigned>(group)};
  if (in_place) {
    poplar_sim::gcl::allReduceInPlaceCrossReplica(ctx.graph(), data, op, ctx.prog(), comm_group,
                                                  ctx.op().name());
    return data;
  }
  return poplar_sim::gcl::allReduceCrossReplica(ctx.graph(), data, op, ctx.prog(), comm_group,
                                                ctx.op().name());
}

absl::Status LowerCrossReplica(LoweringContext& ctx, CollectiveOperator op) {
  ASSIGN_OR_RETURN(poplar_sim::Tensor reduced,
                   AllReduce(ctx, ctx.input(0), op, ctx.MayOverwriteInput(0)));
  ctx.SetOutput(0, std::move(reduced));
  return absl::OkStatus();
}

// The reductions the cross-replica-combining pass made one
// (compiler/cross_replica_combining.h): one all-reduce of the inputs
// flattened and concatenated (a view, no copy), whose output is sliced
// back into each reduction's shape (views again). One ring, one program
// step, the same values element by element. In place when every input
// may be overwritten (the gradients of a training step, which only their
// update reads) and no two of them share elements.
absl::Status LowerCombinedCrossReplica(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(std::string reduction, ctx.GetAttr<std::string>("reduction"));
  if (reduction != "sum" && reduction != "mean") {
    return ctx.Error(absl::StrCat("has reduction \"", reduction, "\"; expected sum or mean"));
  }
  std::vector<poplar_sim::Tensor> flat;
  for (int i = 0; i < ctx.num_inputs(); ++i) flat.push_back(ctx.input(i).flatten());
  const poplar_sim::Tensor all = poplar_sim::concat(flat);
  bool in_place = !all.containsAliases();
  for (int i = 0; i < ctx.num_inputs() && in_place; ++i) in_place = ctx.MayOverwriteInput(i);
  ASSIGN_OR_RETURN(poplar_sim::Tensor reduced,
                   AllReduce(ctx, all,
                             reduction == "sum" ? CollectiveOperator::ADD
                                                : CollectiveOperator::MEAN,
                             in_place));
  size_t offset = 0;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const size_t n = flat[i].numElements();
    ctx.SetOutput(i, reduced.slice(offset, offset + n).reshape(ctx.input(i).shape()));
    offset += n;
  }
  return absl::OkStatus();
}

absl::Status LowerCrossReplicaSum(LoweringContext& ctx) {
  return LowerCrossReplica(ctx, CollectiveOperator::ADD);
}

absl::Status LowerCrossReplicaMean(LoweringContext& ctx) {
  return LowerCrossReplica(ctx, CollectiveOperator::MEAN);
}

absl::Status LowerReplicationIndex(LoweringContext& ctx) {
  poplar_sim::Tensor index =
      ctx.graph().addReplicationIndexConstant(ctx.op().name() + "/index");
  ctx.graph().setTileMapping(index, 0);
  ctx.SetOutput(0, poplar_sim::popops::cast(ctx.graph(), index, poplar_sim::INT, ctx.prog(),
                                            ctx.op().name()));
  return absl::OkStatus();
}

REGISTER_IPU_LOWERING("IpuCrossReplicaSum", LowerCrossReplicaSum);
REGISTER_IPU_LOWERING("IpuCrossReplicaMean", LowerCrossReplicaMean);
REGISTER_IPU_LOWERING(kCombinedCrossReplicaOp, LowerCombinedCrossReplica);
REGISTER_IPU_LOWERING("IpuReplicationIndex", LowerReplicationIndex);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
