#include "poplar_sim/ipu_timeline.h"

#include <algorithm>

namespace poplar_sim {
namespace internal {
namespace {

StepCost CyclesOf(const StepCost& c) {
  StepCost r = c;
  r.exchangeBytes = r.interIpuBytes = r.hostBytesToDevice = r.hostBytesFromDevice = 0;
  r.networkBytes = 0;
  return r;
}

StepCost BytesOf(const StepCost& c) {
  StepCost r;
  r.exchangeBytes = c.exchangeBytes;
  r.interIpuBytes = c.interIpuBytes;
  r.hostBytesToDevice = c.hostBytesToDevice;
  r.hostBytesFromDevice = c.hostBytesFromDevice;
  r.networkBytes = c.networkBytes;
  return r;
}

}  // namespace

IpuTimeline::IpuTimeline(unsigned numIPUs) : ipu_(std::max(numIPUs, 1u)) {
  for (unsigned i = 0; i < ipu_.size(); ++i) all_.push_back(i);
}

uint64_t IpuTimeline::clock(absl::Span<const unsigned> ipus) const {
  if (ipus.empty()) ipus = all_;
  uint64_t latest = 0;
  for (unsigned i : ipus) {
    if (i < ipu_.size()) latest = std::max(latest, ipu_[i].cycles());
  }
  return latest;
}

void IpuTimeline::waitUntil(absl::Span<const unsigned> ipus, uint64_t cycle) {
  if (ipus.empty()) ipus = all_;
  for (unsigned i : ipus) {
    if (i < ipu_.size() && ipu_[i].cycles() < cycle) {
      ipu_[i].syncCycles += cycle - ipu_[i].cycles();
    }
  }
}

uint64_t IpuTimeline::occupy(absl::Span<const unsigned> ipus, const StepCost& c) {
  bytes_ += BytesOf(c);
  if (ipus.empty()) ipus = all_;
  const uint64_t start = clock(ipus);
  if (c.cycles() == 0) return start;
  waitUntil(ipus, start);
  const StepCost cycles = CyclesOf(c);
  for (unsigned i : ipus) {
    if (i < ipu_.size()) ipu_[i] += cycles;
  }
  return start;
}

void IpuTimeline::addToEach(const StepCost& c) {
  bytes_ += BytesOf(c);
  const StepCost cycles = CyclesOf(c);
  for (StepCost& t : ipu_) t += cycles;
}

StepCost IpuTimeline::total() const {
  size_t last = 0;
  for (size_t i = 1; i < ipu_.size(); ++i) {
    const uint64_t a = ipu_[i].cycles(), b = ipu_[last].cycles();
    if (a > b || (a == b && ipu_[i].syncCycles < ipu_[last].syncCycles)) last = i;
  }
  StepCost r = ipu_[last];
  r += bytes_;
  return r;
}

}  // namespace internal
}  // namespace poplar_sim
