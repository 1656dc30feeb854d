// Registers the IPU path with the runtime (runtime/ipu_support.h): IPUs are
// those of the device layer, and an op runs on them when the compiler has a
// lowering for it. Linked into every program that uses the IPU API.
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/device/ipu_devices.h"
#include "tensorflow_ipu/runtime/ipu_support.h"

namespace tensorflow_ipu {
namespace {

class DeviceLayerIpuSupport : public IpuSupport {
 public:
  bool configured() const override {
    return device::IpuDevices::Global().attached();
  }
  int num_devices() const override {
    return device::IpuDevices::Global().num_devices();
  }
  bool HasLowering(absl::string_view op) const override {
    return compiler::LoweringRegistry::Global()->Has(op);
  }
};

const bool registered = [] {
  static const DeviceLayerIpuSupport* support = new DeviceLayerIpuSupport;
  RegisterIpuSupport(support);
  return true;
}();

}  // namespace
}  // namespace tensorflow_ipu
