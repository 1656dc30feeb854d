// IpuSupport: what the runtime needs to know of the process's IPUs, provided
// by the IPU path when a program links it (//tensorflow_ipu/runtime/ipu, which
// every target of the user-facing IPU API depends on).
//
// The runtime itself knows no IPU device and no simulator: placement asks
// this interface whether IPUs are configured and which ops they can run, and
// an IPU cluster of a partitioned run is a "_IpuCluster" node whose kernel
// the IPU path registers. A program that links no IPU path (a CPU-only
// program) gets nullptr here, and a graph that asks for an IPU fails to
// place with the error that no IPU system is configured.
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_SUPPORT_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_SUPPORT_H_

#include "absl/strings/string_view.h"

namespace tensorflow_ipu {

class IpuSupport {
 public:
  virtual ~IpuSupport() = default;
  // Whether configure_ipu_system has attached devices, and how many.
  virtual bool configured() const = 0;
  virtual int num_devices() const = 0;
  // Whether an op can run on an IPU (it has a lowering).
  virtual bool HasLowering(absl::string_view op) const = 0;
};

// Called once, by the IPU path's static initialiser; `support` lives for the
// rest of the process.
void RegisterIpuSupport(const IpuSupport* support);
// nullptr when the program links no IPU path.
const IpuSupport* GetIpuSupport();

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_SUPPORT_H_
