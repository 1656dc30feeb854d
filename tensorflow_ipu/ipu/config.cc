// The validation of IPUConfig: every option's value against what it
// accepts, with messages that name the option and the accepted values.
#include "tensorflow_ipu/ipu/config.h"

#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "poplar_sim/option_flags.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace ipu {
namespace config {
namespace {

absl::Status BadValue(absl::string_view option, absl::string_view value,
                      absl::string_view accepted) {
  return absl::InvalidArgumentError(absl::StrCat(
      option, " = ", value, " is not valid; accepted values: ", accepted));
}

std::string Quoted(const std::string& s) { return absl::StrCat("\"", s, "\""); }

absl::Status CheckVersion(absl::string_view option, const std::string& version,
                          bool empty_ok) {
  if (version == "ipu1" || version == "ipu2" || (empty_ok && version.empty())) {
    return absl::OkStatus();
  }
  return BadValue(option, Quoted(version),
                  empty_ok ? "\"ipu1\", \"ipu2\" or \"\"" : "\"ipu1\" or \"ipu2\"");
}

absl::Status CheckPlannerOptions(absl::string_view section, const PlannerOptionsConfig& c) {
  for (const auto& [name, value] : c.poplar_options) {
    if (name == "availableMemoryProportion") {
      double p;
      if (!absl::SimpleAtod(value, &p) || !(p > 0 && p <= 1)) {
        return absl::InvalidArgumentError(absl::StrCat(
            section, ".poplar_options: availableMemoryProportion must be a number in (0, 1], "
            "not \"", value, "\""));
      }
    } else if (name == "partialsType") {
      if (value == "half") {
        return absl::UnimplementedError(absl::StrCat(
            section, ".poplar_options: partialsType \"half\" is not simulated: the "
            "simulator accumulates partial sums in float only; leave it \"float\""));
      }
      if (value != "float") {
        return absl::InvalidArgumentError(absl::StrCat(
            section, ".poplar_options: partialsType must be \"float\" or \"half\", not \"",
            value, "\""));
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          section, ".poplar_options: unknown option \"", name,
          "\"; the simulator's planner takes availableMemoryProportion and partialsType"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOptimizations(const OptimizationConfig& o) {
  const std::vector<std::pair<const char*, int64_t>> counts = {
      {"maximum_cross_replica_sum_buffer_size", o.maximum_cross_replica_sum_buffer_size},
      {"maximum_reduce_scatter_buffer_size", o.maximum_reduce_scatter_buffer_size},
      {"maximum_inter_ipu_copies_buffer_size", o.maximum_inter_ipu_copies_buffer_size},
      {"maximum_send_recv_cluster_size", o.maximum_send_recv_cluster_size},
      {"maximum_reduce_many_buffer_size", o.maximum_reduce_many_buffer_size},
      {"maximum_all_gather_buffer_size", o.maximum_all_gather_buffer_size},
      {"minimum_remote_tensor_size", o.minimum_remote_tensor_size},
      {"triangular_solve_expander_block_size", o.triangular_solve_expander_block_size},
      {"cholesky_block_size", o.cholesky_block_size},
  };
  for (const auto& [name, value] : counts) {
    if (value < 0) {
      return BadValue(absl::StrCat("optimizations.", name), absl::StrCat(value),
                      "a size in bytes or elements >= 0");
    }
  }
  return absl::OkStatus();
}

}  // namespace

const char* SelectionOrderName(SelectionOrder order) {
  switch (order) {
    case SelectionOrder::AUTO: return "AUTO";
    case SelectionOrder::ZIGZAG: return "ZIGZAG";
    case SelectionOrder::SNAKE: return "SNAKE";
    case SelectionOrder::HOOF: return "HOOF";
  }
  return nullptr;
}

const char* DeviceConnectionTypeName(DeviceConnectionType type) {
  switch (type) {
    case DeviceConnectionType::ALWAYS: return "ALWAYS";
    case DeviceConnectionType::ON_DEMAND: return "ON_DEMAND";
    case DeviceConnectionType::PRE_COMPILE: return "PRE_COMPILE";
    case DeviceConnectionType::NEVER: return "NEVER";
  }
  return nullptr;
}

absl::Status ValidateIPUConfig(const IPUConfig& cfg, bool use_ipu_model) {
  // Enums can only hold other values by a cast; say so rather than guess.
  if (SelectionOrderName(cfg.selection_order) == nullptr) {
    return BadValue("selection_order", absl::StrCat(static_cast<int>(cfg.selection_order)),
                    "SelectionOrder::AUTO, ZIGZAG, SNAKE or HOOF");
  }
  const DeviceConnectionType type = cfg.device_connection.type;
  if (DeviceConnectionTypeName(type) == nullptr) {
    return BadValue("device_connection.type", absl::StrCat(static_cast<int>(type)),
                    "DeviceConnectionType::ALWAYS, ON_DEMAND, PRE_COMPILE or NEVER");
  }
  if (absl::Status s = CheckVersion("device_connection.version",
                                    cfg.device_connection.version, true);
      !s.ok()) {
    return s;
  }
  if ((type == DeviceConnectionType::PRE_COMPILE || type == DeviceConnectionType::NEVER) &&
      cfg.device_connection.version.empty()) {
    return absl::InvalidArgumentError(
        "device_connection.version must be set when device_connection.type is "
        "DeviceConnectionType.NEVER or DeviceConnectionType.PRE_COMPILE: the "
        "programs are compiled for a system that is not attached, so say which "
        "(\"ipu1\" or \"ipu2\")");
  }
  if (use_ipu_model && cfg.ipu_model.version.empty()) {
    return absl::InvalidArgumentError(
        "ipu_model.version must be set when using the IPUModel (\"ipu1\" or "
        "\"ipu2\")");
  }
  if (absl::Status s = CheckVersion("ipu_model.version", cfg.ipu_model.version,
                                    /*empty_ok=*/!use_ipu_model);
      !s.ok()) {
    return s;
  }
  if (cfg.ipu_model.tiles_per_ipu < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ipu_model.tiles_per_ipu = ", cfg.ipu_model.tiles_per_ipu,
        ": give a positive number of tiles, or 0 for the architecture's "
        "full count"));
  }
  poplar_sim::OptionFlags options;
  for (const auto& [name, value] : cfg.compilation_poplar_options) options.set(name, value);
  if (absl::StatusOr<poplar_sim::EngineOptions> parsed = poplar_sim::parseEngineOptions(options);
      !parsed.ok()) {
    return absl::Status(parsed.status().code(),
                        absl::StrCat("compilation_poplar_options: ",
                                     parsed.status().message()));
  }
  const MultiReplicaDistributionConfig& distribution = cfg.experimental.multi_replica_distribution;
  if (distribution.process_count < 0 ||
      (distribution.process_count > 0 &&
       (distribution.process_index < 0 ||
        distribution.process_index >= distribution.process_count))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "experimental.multi_replica_distribution: process_index ", distribution.process_index,
        " of process_count ", distribution.process_count,
        " is not a process of the job; the index must be from 0 to process_count - 1 "
        "(process_count 0 for a single process)"));
  }
  if (distribution.process_count > 1 && distribution.exchange == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "experimental.multi_replica_distribution: process_count ", distribution.process_count,
        " but no exchange reaches the other processes; configure with "
        "tensorflow_ipu::distributed::popdist::set_ipu_config (Open MPI) rather than by hand"));
  }
  const poplar_sim::HostNetwork& network = distribution.host_network;
  if (!(network.bytesPerSecond > 0) || !std::isfinite(network.bytesPerSecond) ||
      !(network.latencySeconds >= 0) || !std::isfinite(network.latencySeconds)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "experimental.multi_replica_distribution.host_network: bytesPerSecond ",
        network.bytesPerSecond, " and latencySeconds ", network.latencySeconds,
        " do not describe a network; the bandwidth must be positive and the latency "
        "zero or more (the defaults are 12.5e9 and 3e-6)"));
  }
  RETURN_IF_ERROR(CheckPlannerOptions("matmuls", cfg.matmuls));
  RETURN_IF_ERROR(CheckPlannerOptions("convolutions", cfg.convolutions));
  return CheckOptimizations(cfg.optimizations);
}

}  // namespace config
}  // namespace ipu
}  // namespace tensorflow_ipu
