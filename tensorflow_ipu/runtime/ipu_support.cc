#include "tensorflow_ipu/runtime/ipu_support.h"

#include <atomic>

namespace tensorflow_ipu {
namespace {

std::atomic<const IpuSupport*>& Registered() {
  static std::atomic<const IpuSupport*> support{nullptr};
  return support;
}

}  // namespace

void RegisterIpuSupport(const IpuSupport* support) {
  Registered().store(support, std::memory_order_release);
}

const IpuSupport* GetIpuSupport() {
  return Registered().load(std::memory_order_acquire);
}

}  // namespace tensorflow_ipu
