#include "tools/bench/ipu_setup.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/runtime/session.h"
#include "tools/bench/table.h"

namespace tfipu_bench {

namespace tfipu = tensorflow_ipu;

absl::Status ConfigureBenchIpus(int ipus, int64_t cross_replica_sum_buffer) {
  tfipu::ipu::IpuSystem& system = tfipu::ipu::IpuSystem::Get();
  if (system.configured()) {
    absl::StatusOr<poplar_sim::Device> device = system.GetDevice(0);
    std::optional<tfipu::ipu::config::IPUConfig> current = system.configuration();
    if (device.ok() && static_cast<int>(device->getTarget().getNumIPUs()) == ipus &&
        current.has_value() &&
        current->optimizations.maximum_cross_replica_sum_buffer_size ==
            cross_replica_sum_buffer) {
      return absl::OkStatus();
    }
    system.Reset();
  }
  tfipu::ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = ipus;
  cfg.optimizations.maximum_cross_replica_sum_buffer_size = cross_replica_sum_buffer;
  return cfg.configure_ipu_system();
}

std::string IpuSummary() {
  tfipu::ipu::IpuSystem& system = tfipu::ipu::IpuSystem::Get();
  if (!system.configured()) return "IPU: not configured";
  absl::StatusOr<poplar_sim::Device> device = system.GetDevice(0);
  if (!device.ok()) return absl::StrCat("IPU: ", device.status().message());
  const poplar_sim::Target& t = device->getTarget();
  return absl::StrCat("IPU: ", system.uses_ipu_model() ? "IPU Model" : "simulated hardware",
                      ", /device:IPU:0 = ", t.getNumIPUs(), " IPU(s) x ",
                      t.getTilesPerIPU(), " tiles");
}

std::string SimulatedIpuTimeNote(const tensorflow_ipu::RunMetadata& metadata,
                                 const char* per) {
  return absl::StrCat("; simulated IPU time ",
                      FormatNumber(metadata.ipu_profile.total_seconds * 1e6), " us/",
                      per);
}

}  // namespace tfipu_bench
