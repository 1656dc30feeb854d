#include "tensorflow_ipu/device/ipu_devices.h"

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace device {

IpuDevices& IpuDevices::Global() {
  static IpuDevices* devices = new IpuDevices;
  return *devices;
}

void IpuDevices::DetachLocked() {
  for (const auto& state : devices_) {
    // A run still holding a handle finishes on its device first.
    absl::MutexLock device_lock(&state->mu);
    state->device.detach();
  }
  devices_.clear();
  manager_.reset();
  attached_ = false;
  ++generation_;
}

void IpuDevices::Attach(std::optional<poplar_sim::DeviceManager> manager,
                        std::vector<poplar_sim::Device> devices) {
  absl::MutexLock lock(&mu_);
  if (attached_) DetachLocked();
  ++generation_;
  manager_ = std::move(manager);
  for (size_t k = 0; k < devices.size(); ++k) {
    auto state = std::make_shared<IpuDeviceHandle::State>();
    state->ordinal = static_cast<int>(k);
    state->generation = generation_;
    state->device = std::move(devices[k]);
    devices_.push_back(std::move(state));
  }
  attached_ = true;
}

void IpuDevices::Detach() {
  absl::MutexLock lock(&mu_);
  if (attached_) DetachLocked();
}

bool IpuDevices::attached() const {
  absl::MutexLock lock(&mu_);
  return attached_;
}

int IpuDevices::num_devices() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(devices_.size());
}

uint64_t IpuDevices::generation() const {
  absl::MutexLock lock(&mu_);
  return generation_;
}

absl::StatusOr<IpuDeviceHandle> IpuDevices::Get(int ordinal) const {
  absl::MutexLock lock(&mu_);
  if (!attached_) {
    return absl::FailedPreconditionError(
        "No IPU system is configured. Create an ipu::config::IPUConfig, set "
        "auto_select_ipus, and call configure_ipu_system() first");
  }
  if (ordinal < 0 || ordinal >= static_cast<int>(devices_.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "/device:IPU:", ordinal, " does not exist: the configuration has ",
        devices_.size(), " IPU device(s), /device:IPU:0 to /device:IPU:",
        devices_.size() - 1));
  }
  return IpuDeviceHandle(devices_[ordinal]);
}

std::optional<poplar_sim::DeviceManager> IpuDevices::manager() const {
  absl::MutexLock lock(&mu_);
  return manager_;
}

}  // namespace device
}  // namespace tensorflow_ipu
