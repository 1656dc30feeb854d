// IpuDeviceOptions: what a configuration says about compiling for and
// running on the devices it attaches. The user-facing configuration
// (ipu::config::IPUConfig) sets them with the devices; the runtime's IPU
// path reads them from the device's handle when it compiles a cluster and
// before it runs one. They travel with the devices, so a new configuration
// (a new generation) brings its own.
#ifndef TENSORFLOW_IPU_DEVICE_IPU_DEVICE_OPTIONS_H_
#define TENSORFLOW_IPU_DEVICE_IPU_DEVICE_OPTIONS_H_

#include <memory>
#include <optional>

#include "poplar_sim/ipu_link_topology.h"
#include "poplar_sim/option_flags.h"
#include "poplar_sim/replica_subset.h"

namespace tensorflow_ipu {
namespace device {

struct IpuDeviceOptions {
  // When a device is attached to (the vendor's DeviceConnectionType).
  enum class Connection {
    kAlways,      // when configured
    kOnDemand,    // by the first run that needs it
    kPreCompile,  // never: clusters compile, running one is an error
    kNever,       // never: likewise
  };
  Connection connection = Connection::kAlways;
  // Engine options of every cluster compiled for the devices
  // (compilation_poplar_options); POPLAR_ENGINE_OPTIONS overrides them.
  poplar_sim::OptionFlags compilation_options;
  // Options of every matrix multiplication the clusters plan
  // (IPUConfig.matmuls.poplar_options: availableMemoryProportion, ...).
  poplar_sim::OptionFlags matmul_options;
  // The same for every convolution's products (IPUConfig.convolutions).
  poplar_sim::OptionFlags convolution_options;
  // IPUConfig.optimizations.maximum_cross_replica_sum_buffer_size: the
  // bytes of independent cross-replica reductions combined into one
  // (compiler/cross_replica_combining.h); 0: none.
  int64_t cross_replica_sum_buffer_bytes = 0;
  // The IPU each shard runs on (selection_order); unset: chosen per
  // cluster, as the vendor's AUTO.
  std::optional<poplar_sim::IpuOrder> ipu_order;
  // Multi-replica distribution: this process is instance `process_index`
  // of `process_count` (0: not distributed), each running the replicas its
  // devices hold; a cluster of R local replicas runs the global replicas
  // [process_index x R, (process_index + 1) x R) of R x process_count, and
  // its cross-replica reductions reach the others through `exchange`.
  int process_count = 0;
  int process_index = 0;
  std::shared_ptr<poplar_sim::CrossInstanceExchange> exchange;
  poplar_sim::HostNetwork host_network;  // what crossing it costs
};

}  // namespace device
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DEVICE_IPU_DEVICE_OPTIONS_H_
