// ipu::config::IPUConfig: how a program chooses and sets up its (simulated)
// IPUs, as the vendor's TF1 port spells it (tensorflow/python/ipu/config.py).
//
//   ipu::config::IPUConfig cfg;
//   cfg.auto_select_ipus = 4;                                 // four IPUs
//   cfg.selection_order = ipu::config::SelectionOrder::SNAKE;
//   cfg.compilation_poplar_options = {{"debug.allowOutOfMemory", "true"}};
//   cfg.device_connection.type = ipu::config::DeviceConnectionType::ON_DEMAND;
//   RETURN_IF_ERROR(cfg.configure_ipu_system());
//
// `auto_select_ipus` takes a count, or a list of counts for several devices
// (/device:IPU:0, /device:IPU:1, ...); `select_ipus` takes explicit device
// ids instead. Set TF_POPLAR_FLAGS=--use_ipu_model to run on the IPU Model.
//
// What each option does here (docs/ipu_execution.md, "IPUConfig options"):
//  - selection_order, compilation_poplar_options, device_connection.type,
//    device_connection.version and ipu_model.* change what the simulator
//    compiles and runs;
//  - allow_recompute, device_connection.enable_remote_buffers and
//    optimizations.* are validated and recorded (IpuSystem::configuration())
//    but change nothing: the simulator keeps every activation, has no remote
//    buffers, and has none of the scheduling and fusion passes they tune.
#ifndef TENSORFLOW_IPU_IPU_CONFIG_H_
#define TENSORFLOW_IPU_IPU_CONFIG_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "poplar_sim/replica_subset.h"
#include "tensorflow_ipu/ipu/profiling_config.h"

namespace tensorflow_ipu {
namespace ipu {
namespace config {

// A count of IPUs, or one count per device.
class IpuCounts {
 public:
  IpuCounts& operator=(int count) {
    counts_ = {count};
    return *this;
  }
  IpuCounts& operator=(std::vector<int> counts) {
    counts_ = std::move(counts);
    return *this;
  }
  IpuCounts& operator=(std::initializer_list<int> counts) {
    counts_ = counts;
    return *this;
  }
  const std::vector<int>& counts() const { return counts_; }
  bool empty() const { return counts_.empty(); }

 private:
  std::vector<int> counts_;
};

// Which IPU of a multi-IPU device each shard runs on (of a replica's IPUs;
// poplar_sim/ipu_link_topology.h draws the IPU-Link ladder):
//   ZIGZAG 0, 1, 2, 3, ...; SNAKE 0, 1, 3, 2, ... (consecutive shards
//   linked); HOOF 0, 2, ..., 3, 1 (linked, and the last to the first);
//   AUTO SNAKE for a pipeline, ZIGZAG otherwise.
enum class SelectionOrder { AUTO, ZIGZAG, SNAKE, HOOF };

// When the devices are attached to:
//   ALWAYS      by configure_ipu_system;
//   ON_DEMAND   by the first run that needs the device;
//   PRE_COMPILE, NEVER  never: clusters compile (reports, events, compile
//               errors), and running one is InvalidArgument "Trying to run
//               an executable on a device that was configured for
//               compilation only." (the vendor's PRE_COMPILE runs return
//               zeros instead; here no values are made up).
enum class DeviceConnectionType { ALWAYS, ON_DEMAND, PRE_COMPILE, NEVER };

struct IPUDeviceConnectionConfig {
  DeviceConnectionType type = DeviceConnectionType::ALWAYS;
  // "ipu1", "ipu2" or "" (default). Required for PRE_COMPILE and NEVER;
  // when set, it is the architecture of the simulated IPU system (ipu2
  // otherwise). Not used with the IPU Model (see ipu_model.version).
  std::string version;
  // Whether the system that will run the programs has remote buffers.
  // Recorded only: the simulator has no remote buffers.
  bool enable_remote_buffers = false;
};

struct IPUModelConfig {
  // Whether the IPU Model compiles IPU code: when false, code takes no tile
  // memory in its profiles and out-of-memory checks.
  bool compile_ipu_code = true;
  // Tiles per IPU of the IPU Model; 0 means the architecture's full count.
  // TF_POPLAR_FLAGS=--ipu_model_tiles=N overrides it.
  int tiles_per_ipu = 0;
  // "ipu1" (Mk1 GC2) or "ipu2" (Mk2 GC200).
  std::string version = "ipu2";
};

// Recorded only (see above); each has the vendor's name and default.
struct IpuAlgebraicSimplifierConfig {
  bool fast = false;
  bool dot_strength = true;
};

// The vendor's IPUConfig.matmuls / .convolutions: Poplar options of every
// matrix multiplication (and convolution) the clusters compile, as
// {name, value}. Accepted: "availableMemoryProportion" (a number in
// (0, 1]: the share of each tile's memory the planner may give a
// multiplication's temporary values; poplar_sim's planner trades speed
// against it, docs/poplar_sim.md) and "partialsType" ("float"; "half"
// is refused, Unimplemented: the simulator accumulates in float only).
// Other names are InvalidArgument, naming them. `convolutions` applies to
// the products convolutions are lowered to (im2col and a matmul).
struct PlannerOptionsConfig {
  std::map<std::string, std::string> poplar_options;
};

struct OptimizationConfig {
  IpuAlgebraicSimplifierConfig math;
  bool prefetch_data_streams = true;
  bool combine_embedding_lookups = false;
  bool combine_matmuls = false;
  bool enable_graph_outlining = true;
  bool merge_infeed_io_copies = false;
  bool enable_gather_simplifier = true;
  // Byte counts (>= 0); 0 schedules at once.
  int64_t maximum_cross_replica_sum_buffer_size = 0;
  int64_t maximum_reduce_scatter_buffer_size = 0;
  int64_t maximum_inter_ipu_copies_buffer_size = 0;
  int64_t maximum_send_recv_cluster_size = 0;
  int64_t maximum_reduce_many_buffer_size = 0;
  int64_t maximum_all_gather_buffer_size = 0;
  int64_t minimum_remote_tensor_size = 128;
  // Block sizes (>= 0); 0 lets the implementation choose.
  int64_t triangular_solve_expander_block_size = 0;
  int64_t cholesky_block_size = 0;
};

// The vendor's set_experimental_multi_replica_distribution_options: this
// process runs its devices' replicas as instance `process_index` of
// `process_count` processes that together run one replicated program
// (replication_index() global, cross-replica sums over every process).
// process_count 0 (the default) means a single process. Set it with
// tensorflow_ipu::distributed::popdist::set_ipu_config, which also supplies
// `exchange` (Open MPI between the instances; docs/distributed.md).
// Unlike the vendor's port, the IPU Model (TF_POPLAR_FLAGS=--use_ipu_model)
// allows it: every device here is simulated.
struct MultiReplicaDistributionConfig {
  int process_count = 0;
  int process_index = 0;
  std::shared_ptr<poplar_sim::CrossInstanceExchange> exchange;
  // The network between the processes' hosts, for the cost model: what a
  // cross-replica sum spanning processes adds to the profile
  // (networkCycles, networkBytes). Defaults: 100 Gbit/s, 3 us per message
  // (poplar_sim/replica_subset.h says where they come from).
  poplar_sim::HostNetwork host_network;
};

struct ExperimentalConfig {
  MultiReplicaDistributionConfig multi_replica_distribution;
};

class IPUConfig {
 public:
  // Recorded only: the simulator keeps every activation, so there is no
  // memory to win by recomputing them.
  bool allow_recompute = false;
  SelectionOrder selection_order = SelectionOrder::AUTO;
  // Poplar engine options for every compiled cluster, as {name, value}; the
  // names and values poplar_sim::Engine accepts (poplar_sim/option_flags.h:
  // autoReport.*, debug.allowOutOfMemory, ...). POPLAR_ENGINE_OPTIONS in
  // the environment overrides them, as it does the vendor's.
  std::map<std::string, std::string> compilation_poplar_options;
  IpuCounts auto_select_ipus;
  std::vector<int> select_ipus;
  IPUDeviceConnectionConfig device_connection;
  IPUModelConfig ipu_model;
  OptimizationConfig optimizations;
  // Event trace and reports (profiling_config.h); validated and applied by
  // configure_ipu_system.
  ProfilingConfig profiling;
  PlannerOptionsConfig matmuls;
  PlannerOptionsConfig convolutions;
  ExperimentalConfig experimental;

  // Attaches the devices, one per /device:IPU:k (or, per
  // device_connection.type, selects them to attach later or never), and
  // logs each attach. Configuring again detaches the earlier devices first,
  // with a warning.
  // Errors (InvalidArgument unless said): an option with a bad value (the
  // message names the option and the accepted values), an unknown Poplar
  // option (naming it and listing the known ones), a count of 0 or beyond
  // the system (the IPU Model: beyond 64), a count that is not a device
  // size (1, 2, 4, ...), no free device of a size (ResourceExhausted), an
  // unknown or occupied device id, both fields set, unknown
  // TF_POPLAR_FLAGS. A call that fails changes nothing: the earlier
  // configuration, if any, stays attached and usable.
  absl::Status configure_ipu_system() const;
};

// The enums' names, as the vendor's Python spells them ("SNAKE").
const char* SelectionOrderName(SelectionOrder order);
const char* DeviceConnectionTypeName(DeviceConnectionType type);

// Checks every option's value against what it accepts; `use_ipu_model`
// says whether TF_POPLAR_FLAGS selects the IPU Model (which needs an
// ipu_model.version).
absl::Status ValidateIPUConfig(const IPUConfig& cfg, bool use_ipu_model);

}  // namespace config
}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IPU_CONFIG_H_
