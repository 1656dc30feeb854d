// IpuSystem: the process-wide simulated IPU system that configure_ipu_system
// sets up. It decides from an IPUConfig and TF_POPLAR_FLAGS which devices to
// attach and hands them to the IPU device layer (device/ipu_devices.h), which
// backs /device:IPU:0, /device:IPU:1, ... for the runtime.
#ifndef TENSORFLOW_IPU_IPU_IPU_SYSTEM_H_
#define TENSORFLOW_IPU_IPU_IPU_SYSTEM_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "poplar_sim/device.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/poplar_flags.h"

namespace tensorflow_ipu {
namespace ipu {

class IpuSystem {
 public:
  static IpuSystem& Get();

  absl::Status Configure(const config::IPUConfig& cfg);
  bool configured() const;
  bool uses_ipu_model() const;
  // The number of TensorFlow IPU devices (/device:IPU:k) configured.
  int num_devices() const;
  // The device backing /device:IPU:`ordinal`. FailedPrecondition when the
  // system is not configured; InvalidArgument naming the ordinal and the
  // count when it is out of range.
  absl::StatusOr<poplar_sim::Device> GetDevice(int ordinal) const;
  // The IPUs of /device:IPU:`ordinal` (errors as GetDevice).
  absl::StatusOr<int> NumIpus(int ordinal) const;
  // The whole simulated hardware system (absent for the IPU Model).
  std::optional<poplar_sim::DeviceManager> manager() const;
  // The configuration applied by the last successful configure_ipu_system
  // (every option, also those only recorded), while its devices are
  // attached; nullopt before, and after a Reset.
  std::optional<config::IPUConfig> configuration() const;
  // Detaches everything (tests and tools).
  void Reset();

 private:
  IpuSystem() = default;

  // Serialises Configure and Reset (the devices themselves live in the
  // device layer, which has its own lock).
  mutable absl::Mutex mu_;
  bool use_ipu_model_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<config::IPUConfig> configuration_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IPU_IPU_SYSTEM_H_
