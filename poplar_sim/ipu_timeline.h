// The clocks of one replica's IPUs during a run.
//
// Each IPU runs the steps that involve its tiles. A step that spans several
// IPUs (a compute set mapped over two of them, an inter-IPU copy, a branch
// decision) starts when the last of them is free, and the others wait for it
// (the wait counts as sync). Steps on different IPUs therefore overlap, as on
// the hardware, where an IPU waits for another only when they exchange data
// or synchronise: this is what makes the stages of a pipeline, each on its
// own IPU, run at the same time. With one IPU the clock is the sum of the
// steps' costs. Internal to the engine.
#ifndef POPLAR_SIM_IPU_TIMELINE_H_
#define POPLAR_SIM_IPU_TIMELINE_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "poplar_sim/profile.h"

namespace poplar_sim {
namespace internal {

class IpuTimeline {
 public:
  explicit IpuTimeline(unsigned numIPUs);

  // Runs a step that costs `c` on `ipus` (every IPU if empty), starting when
  // the last of them is free; returns its start. A step that costs no cycles
  // neither waits nor makes anyone wait; its bytes still count.
  uint64_t occupy(absl::Span<const unsigned> ipus, const StepCost& c);
  // Adds `c` to every IPU's clock without aligning them (each IPU runs its
  // own loop counter).
  void addToEach(const StepCost& c);
  // `ipus` (every IPU if empty) wait until `cycle` if they are earlier.
  void waitUntil(absl::Span<const unsigned> ipus, uint64_t cycle);
  // The latest clock of `ipus` (every IPU if empty).
  uint64_t clock(absl::Span<const unsigned> ipus) const;
  // The latest clock of all: the time the run has taken so far.
  uint64_t elapsed() const { return clock({}); }
  // The run so far as one cost: the cycles by category of the IPU that
  // finishes last (its idle time counted as sync; of several, the one that
  // waited least), so that total().cycles() == elapsed(); and the bytes
  // moved by all the IPUs.
  StepCost total() const;

 private:
  // Cycle categories per IPU; ipu_[i].cycles() is IPU i's clock.
  std::vector<StepCost> ipu_;
  StepCost bytes_;  // byte counters of every step
  std::vector<unsigned> all_;
};

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_IPU_TIMELINE_H_
