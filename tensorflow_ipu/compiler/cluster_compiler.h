// Compiles a ClusterIr for an IPU device and runs it.
//
// CompileCluster runs the pass pipeline (static-shape check, shard
// assignment, inter-IPU copy insertion), then lowers: one virtual graph per
// IPU of the device; a host-to-device stream and a variable for each
// argument (on the IPU of its shard, spread over the tiles); every op through
// the lowering registry, in order, into one program (loop bodies, feeds and
// variables through the lowerings of their ops and the cluster's
// EmissionState); a device-to-host stream for each result. The poplar_sim
// Engine is built once here.
//
// Resource variables (the handle ops of the IR) become device tensors that
// live as long as the engine, with host write and read handles: the runtime
// decides when a variable's value must be written to the device or read
// back (WriteResource / ReadResource), so a variable can stay on the device
// across runs. Execution counters (EmissionState::AddExecutionCounter) are
// device state of the engine alone: 0 when it is made, kept across runs.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<CompiledCluster> c,
//                    CompileCluster(std::move(ir), device.getTarget()));
//   ASSIGN_OR_RETURN(ClusterRunStats stats, c->Run(device, inputs, &outputs));
#ifndef TENSORFLOW_IPU_COMPILER_CLUSTER_COMPILER_H_
#define TENSORFLOW_IPU_COMPILER_CLUSTER_COMPILER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "poplar_sim/device.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/ipu_link_topology.h"
#include "poplar_sim/replica_subset.h"
#include "poplar_sim/target.h"
#include "tensorflow_ipu/compiler/cluster_ir.h"
#include "tensorflow_ipu/compiler/emission_state.h"
#include "tensorflow_ipu/compiler/tensor_tile_mapping.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace compiler {

// What one Run of a compiled cluster cost on the simulated device.
struct ClusterRunStats {
  poplar_sim::RunStats run;      // the engine's last run
  bool engine_loaded = false;    // the engine had to be loaded first
  bool engine_switched = false;  // ... replacing another engine
  poplar_sim::LoadCost load;     // the cost of that load, if any
};

struct CompileOptions;  // below

class CompiledCluster {
 public:
  const std::vector<FeedBinding>& infeeds() const { return infeeds_; }
  const std::vector<FeedBinding>& outfeeds() const { return outfeeds_; }
  // How many replicas run the cluster (ClusterIr::replication_factor).
  int replication_factor() const { return ir_.replication_factor; }
  // Before Run: infeed k reads `records` (records_per_run x
  // replication_factor() tensors of the binding's dtype and shape) in
  // place, so they must outlive the run; replica r reads records r, r + R,
  // r + 2R, ... (each replica its own batches). Outfeed k writes replica
  // r's records_per_run records into element r of the returned tensors.
  absl::Status ConnectInfeed(int k, const std::vector<Tensor>& records);
  absl::StatusOr<std::vector<Tensor>> ConnectOutfeed(int k);
  // An outfeed's records as the host sees them: [n, ...] from one replica,
  // [n, R, ...] (iteration-major) from R > 1.
  static absl::StatusOr<Tensor> StackReplicas(const std::vector<Tensor>& per_replica);

  // The cluster's variables, each once, in order of first use.
  const std::vector<ResourceBinding>& resources() const { return resources_; }
  // Host -> device and device -> host copies of variable k (counted as host
  // transfers by the engine; see Target::hostTransferCycles for their cost).
  absl::Status WriteResource(int k, const Tensor& value);
  absl::StatusOr<Tensor> ReadResource(int k);

  // Makes the cluster's replicas those of instance `process_index` of
  // `process_count` processes running the same cluster: replicas
  // [process_index x R, (process_index + 1) x R) of R x process_count (R:
  // replication_factor()), with cross-replica reductions through `exchange`
  // (poplar_sim::Engine::setRuntimeReplicaSubset), costing `network` for
  // the part of a reduction that crosses processes. process_count 0 or 1:
  // all replicas are local.
  absl::Status DistributeReplicas(int process_count, int process_index,
                                  std::shared_ptr<poplar_sim::CrossInstanceExchange> exchange,
                                  poplar_sim::HostNetwork network = {});

  // The IR after the passes (shards assigned, copies inserted).
  const ClusterIr& ir() const { return ir_; }
  const poplar_sim::Engine& engine() const { return *engine_; }
  // The memory of the engine's fullest tile (all categories) and how many
  // tiles are used (hold a variable or run a vertex; control code alone
  // does not count: poplar_sim::TileMemory::used): fixed at compile time,
  // so computed once rather than by walking every tile's record on each run.
  uint64_t max_tile_bytes() const { return max_tile_bytes_; }
  int tiles_used() const { return tiles_used_; }
  // Where each output of each op of the cluster lives on the tiles; filled
  // only when CompileOptions::collect_tensor_map asked for it.
  const std::vector<TensorTileMapping>& tensor_map() const { return tensor_map_; }

  // Streams `inputs` (in argument order, with the IR's dtypes and shapes) to
  // the device, loads the engine if another one is on the device, runs it,
  // and fills `outputs` (in result order). Not thread-safe for one device:
  // callers serialise runs per device. The engine may use `host_threads`
  // during this run (nullptr: the calling thread only). A run still going
  // at `deadline` (in a loop whose condition never changes) stops with
  // DeadlineExceeded.
  absl::StatusOr<ClusterRunStats> Run(poplar_sim::Device& device,
                                      const std::vector<Tensor>& inputs,
                                      std::vector<Tensor>* outputs,
                                      poplar_sim::HostThreads* host_threads = nullptr,
                                      absl::Time deadline = absl::InfiniteFuture());

 private:
  friend absl::StatusOr<std::unique_ptr<CompiledCluster>> CompileCluster(
      ClusterIr ir, const poplar_sim::Target& target,
      const CompileOptions& options);
  CompiledCluster() = default;

  ClusterIr ir_;
  std::vector<ResourceBinding> resources_;
  std::vector<FeedBinding> infeeds_;
  std::vector<FeedBinding> outfeeds_;
  std::unique_ptr<poplar_sim::Engine> engine_;
  uint64_t max_tile_bytes_ = 0;
  int tiles_used_ = 0;
  std::vector<TensorTileMapping> tensor_map_;
};

// How a cluster is compiled, beyond its IR and target. An OptionFlags
// converts to it (engine options only).
struct CompileOptions {
  CompileOptions() = default;
  CompileOptions(poplar_sim::OptionFlags engine)  // NOLINT
      : engine_options(std::move(engine)) {}

  // Given to Engine::create (the runtime puts the configuration's
  // compilation_poplar_options and the cluster's autoReport subdirectory
  // there; see runtime/ipu/ipu_auto_report.h).
  poplar_sim::OptionFlags engine_options;
  // The IPU (of its replica's IPUs) that shard k runs on: ipuForShard(order,
  // k, IPUs per replica). Unset: SNAKE for a cluster with a pipeline,
  // ZIGZAG otherwise, as the vendor's SelectionOrder.AUTO decides.
  std::optional<poplar_sim::IpuOrder> ipu_order;
  // Given to every matrix multiplication's planner (poplin::matMul:
  // availableMemoryProportion), from IPUConfig.matmuls.
  poplar_sim::OptionFlags matmul_options;
  // The same for the products a convolution is lowered to, from
  // IPUConfig.convolutions.
  poplar_sim::OptionFlags convolution_options;
  // Independent cross-replica reductions of up to this many bytes together
  // become one (cross_replica_combining.h), from IPUConfig's
  // optimizations.maximum_cross_replica_sum_buffer_size; 0: none.
  int64_t cross_replica_sum_buffer_bytes = 0;
  // Fill CompiledCluster::tensor_map() (for the COMPILE_END event; it walks
  // the tile mapping of every value, so only when someone reads it).
  bool collect_tensor_map = false;
  // Host threads the engine's compilation may use (not owned; null: the
  // calling thread only). The compiled cluster is the same either way.
  poplar_sim::HostThreads* host_threads = nullptr;
};

// The order `options` asks for, or the one AUTO picks for `ir`.
poplar_sim::IpuOrder ResolveIpuOrder(const ClusterIr& ir,
                                     const CompileOptions& options);

// Errors: a dynamic shape (InvalidArgument naming the tensor), a shard
// beyond the device, an op with no lowering or that its lowering refuses,
// the engine's own errors (out of tile memory: ResourceExhausted).
absl::StatusOr<std::unique_ptr<CompiledCluster>> CompileCluster(
    ClusterIr ir, const poplar_sim::Target& target,
    const CompileOptions& options = {});

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_CLUSTER_COMPILER_H_
