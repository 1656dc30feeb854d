#include "tensorflow_ipu/ipu/ipu_system.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/logging.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/device/ipu_devices.h"

namespace tensorflow_ipu {
namespace ipu {
namespace {

// The most IPUs an IPU Model device may have: the largest simulated system
// (TF_POPLAR_FLAGS=--simulated_ipus accepts up to 64 too). Larger counts
// would ask the simulator for billions of tiles.
constexpr int kMaxIpuModelIpus = 64;

bool IsPowerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

// What a successful configuration attaches: built completely before the
// earlier configuration is replaced, so a failed call changes nothing.
struct Attached {
  std::optional<poplar_sim::DeviceManager> manager;  // absent for the IPU Model
  std::vector<poplar_sim::Device> devices;
};

absl::StatusOr<Attached> AttachIpuModel(const config::IPUConfig& cfg,
                                        const PoplarFlags& flags) {
  if (!cfg.select_ipus.empty()) {
    return absl::InvalidArgumentError(
        "select_ipus names hardware device ids, but TF_POPLAR_FLAGS selects "
        "the IPU Model; use auto_select_ipus with the IPU Model");
  }
  Attached attached;
  for (int count : cfg.auto_select_ipus.counts()) {
    if (count <= 0 || count > kMaxIpuModelIpus) {
      return absl::InvalidArgumentError(absl::StrCat(
          "auto_select_ipus = ", count, ": the IPU Model has 1 to ",
          kMaxIpuModelIpus, " IPUs; ask for at least one IPU and at most ",
          kMaxIpuModelIpus));
    }
    poplar_sim::IPUModel model(cfg.ipu_model.version);
    model.numIPUs = static_cast<unsigned>(count);
    model.tilesPerIPU = static_cast<unsigned>(
        flags.ipu_model_tiles > 0 ? flags.ipu_model_tiles
                                  : cfg.ipu_model.tiles_per_ipu);
    model.compileIPUCode = cfg.ipu_model.compile_ipu_code;
    absl::StatusOr<poplar_sim::Device> device = model.createDevice();
    if (!device.ok()) {
      return absl::Status(device.status().code(),
                          absl::StrCat("IPU Model: ", device.status().message()));
    }
    attached.devices.push_back(*std::move(device));
  }
  return attached;
}

absl::StatusOr<Attached> AttachHardware(const config::IPUConfig& cfg,
                                        const PoplarFlags& flags) {
  // The simulated hardware is Mk2 unless device_connection.version says
  // which system the programs are for (ipu_model.* is the IPU Model's).
  const std::string arch = cfg.device_connection.version.empty()
                               ? std::string("ipu2")
                               : cfg.device_connection.version;
  ASSIGN_OR_RETURN(poplar_sim::DeviceManager manager,
                   poplar_sim::DeviceManager::create(
                       static_cast<unsigned>(flags.simulated_ipus), arch));
  const int total = static_cast<int>(manager.getNumIPUs());
  std::vector<poplar_sim::Device> devices;
  auto fail = [&devices](absl::Status s) {
    for (poplar_sim::Device& d : devices) d.detach();
    return s;
  };
  for (int count : cfg.auto_select_ipus.counts()) {
    if (count <= 0 || count > total) {
      return fail(absl::InvalidArgumentError(absl::StrCat(
          "auto_select_ipus = ", count, ": the simulated system has ", total,
          " IPUs; ask for 1 to ", total,
          " (TF_POPLAR_FLAGS=--simulated_ipus=N changes the system size)")));
    }
    if (!IsPowerOfTwo(count)) {
      return fail(absl::InvalidArgumentError(absl::StrCat(
          "auto_select_ipus = ", count,
          ": devices come in sizes 1, 2, 4, 8, ... IPUs; ask for a power of "
          "two")));
    }
    bool attached = false;
    for (poplar_sim::Device& d :
         manager.getDevices(poplar_sim::TargetType::IPU, count)) {
      if (!d.isAttached() && d.attach().ok()) {
        devices.push_back(d);
        attached = true;
        break;
      }
    }
    if (!attached) {
      return fail(absl::ResourceExhaustedError(absl::StrCat(
          "auto_select_ipus: no free device of ", count, " IPUs is left in the ",
          total, "-IPU system after attaching ", devices.size(), " device(s)")));
    }
  }
  for (int id : cfg.select_ipus) {
    absl::StatusOr<poplar_sim::Device> d =
        id < 0 ? absl::NotFoundError(absl::StrCat("device id ", id, " is negative"))
               : manager.getDevice(static_cast<unsigned>(id));
    if (!d.ok()) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat("select_ipus: ", d.status().message())));
    }
    absl::Status s = d->isAttached()
                         ? absl::FailedPreconditionError("it is already attached")
                         : d->attach();
    if (!s.ok()) {
      return fail(absl::InvalidArgumentError(absl::StrCat(
          "select_ipus: device ", id, " cannot be attached: ", s.message())));
    }
    devices.push_back(*d);
  }
  Attached attached;
  attached.manager = std::move(manager);
  attached.devices = std::move(devices);
  return attached;
}

// What the configuration tells the device layer and, through it, the
// runtime.
device::IpuDeviceOptions DeviceOptions(const config::IPUConfig& cfg) {
  using Connection = device::IpuDeviceOptions::Connection;
  device::IpuDeviceOptions options;
  switch (cfg.device_connection.type) {
    case config::DeviceConnectionType::ALWAYS: options.connection = Connection::kAlways; break;
    case config::DeviceConnectionType::ON_DEMAND: options.connection = Connection::kOnDemand; break;
    case config::DeviceConnectionType::PRE_COMPILE: options.connection = Connection::kPreCompile; break;
    case config::DeviceConnectionType::NEVER: options.connection = Connection::kNever; break;
  }
  for (const auto& [name, value] : cfg.compilation_poplar_options) {
    options.compilation_options.set(name, value);
  }
  for (const auto& [name, value] : cfg.matmuls.poplar_options) {
    options.matmul_options.set(name, value);
  }
  for (const auto& [name, value] : cfg.convolutions.poplar_options) {
    options.convolution_options.set(name, value);
  }
  options.cross_replica_sum_buffer_bytes = cfg.optimizations.maximum_cross_replica_sum_buffer_size;
  switch (cfg.selection_order) {
    case config::SelectionOrder::AUTO: break;
    case config::SelectionOrder::ZIGZAG: options.ipu_order = poplar_sim::IpuOrder::kZigZag; break;
    case config::SelectionOrder::SNAKE: options.ipu_order = poplar_sim::IpuOrder::kSnake; break;
    case config::SelectionOrder::HOOF: options.ipu_order = poplar_sim::IpuOrder::kHoof; break;
  }
  const config::MultiReplicaDistributionConfig& distribution =
      cfg.experimental.multi_replica_distribution;
  options.process_count = distribution.process_count;
  options.process_index = distribution.process_index;
  options.exchange = distribution.exchange;
  options.host_network = distribution.host_network;
  return options;
}

}  // namespace

IpuSystem& IpuSystem::Get() {
  static IpuSystem* system = new IpuSystem;
  return *system;
}

void IpuSystem::Reset() {
  absl::MutexLock lock(&mu_);
  device::IpuDevices::Global().Detach();
  configuration_.reset();
}

absl::Status IpuSystem::Configure(const config::IPUConfig& cfg) {
  ASSIGN_OR_RETURN(PoplarFlags flags, PoplarFlagsFromEnvironment());
  const std::vector<int>& counts = cfg.auto_select_ipus.counts();
  if (!counts.empty() && !cfg.select_ipus.empty()) {
    return absl::InvalidArgumentError(
        "IPUConfig sets both auto_select_ipus and select_ipus; set one of them");
  }
  if (counts.empty() && cfg.select_ipus.empty()) {
    return absl::InvalidArgumentError(
        "IPUConfig selects no IPUs; set auto_select_ipus (a count) or "
        "select_ipus (device ids)");
  }
  RETURN_IF_ERROR(config::ValidateIPUConfig(cfg, flags.use_ipu_model));
  absl::MutexLock lock(&mu_);
  // The new devices come from a new system (or are IPU Models), so they can
  // be attached while the earlier configuration's devices still are.
  ASSIGN_OR_RETURN(Attached attached, flags.use_ipu_model
                                          ? AttachIpuModel(cfg, flags)
                                          : AttachHardware(cfg, flags));
  device::IpuDevices& devices = device::IpuDevices::Global();
  if (devices.attached()) {
    TFIPU_LOG(WARNING)
        << "The IPU system has already been configured in this process; "
           "resetting it: the earlier configuration's devices are detached";
  }
  devices.Attach(std::move(attached.manager), std::move(attached.devices),
                 DeviceOptions(cfg));
  use_ipu_model_ = flags.use_ipu_model;
  configuration_ = cfg;
  return absl::OkStatus();
}

bool IpuSystem::configured() const {
  return device::IpuDevices::Global().attached();
}

bool IpuSystem::uses_ipu_model() const {
  absl::MutexLock lock(&mu_);
  return use_ipu_model_;
}

int IpuSystem::num_devices() const {
  return device::IpuDevices::Global().num_devices();
}

absl::StatusOr<poplar_sim::Device> IpuSystem::GetDevice(int ordinal) const {
  ASSIGN_OR_RETURN(device::IpuDeviceHandle handle,
                   device::IpuDevices::Global().Get(ordinal));
  return handle.device();
}

absl::StatusOr<int> IpuSystem::NumIpus(int ordinal) const {
  ASSIGN_OR_RETURN(poplar_sim::Device d, GetDevice(ordinal));
  return static_cast<int>(d.getTarget().getNumIPUs());
}

std::optional<config::IPUConfig> IpuSystem::configuration() const {
  absl::MutexLock lock(&mu_);
  if (!device::IpuDevices::Global().attached()) return std::nullopt;
  return configuration_;
}

std::optional<poplar_sim::DeviceManager> IpuSystem::manager() const {
  return device::IpuDevices::Global().manager();
}

namespace config {
absl::Status IPUConfig::configure_ipu_system() const {
  RETURN_IF_ERROR(ValidateProfilingConfig(profiling));
  RETURN_IF_ERROR(IpuSystem::Get().Configure(*this));
  ApplyProfilingConfig(profiling);
  return absl::OkStatus();
}
}  // namespace config

}  // namespace ipu
}  // namespace tensorflow_ipu
