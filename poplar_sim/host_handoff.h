// How much it costs the host to hand work from one thread to another, and
// what the engine makes of it. Internal to poplar_sim.
//
// On some machines the two cores the simulator runs on sit far apart (a VM
// whose vCPUs are on distant parts of the host's processor): a cache line
// took 430-510 ns to go to the other core and back on one such VM, against
// about 100-200 on others, and a core read what the other had just written
// at a quarter of the speed of its own cache. There, children of a sequence
// run side by side (lanes) cost more than they save unless they are large:
// the benchmark MLP's training step ran 8% faster without its small lanes.
// So did it on a Xeon VM with a 167 ns round trip (the plain loop 8-13%,
// gradient accumulation 12-17%, the pipeline 7%; replicas and the Keras
// CNN unchanged), so only a hand-off faster than that (the cores of one
// bare-metal socket, about 40-80 ns; not measured here) keeps the small
// lanes.
//
//   uint64_t minWork = options.minLaneWork.value_or(
//       DefaultMinLaneWork(HostHandOffRoundTripNs()));
#ifndef POPLAR_SIM_HOST_HANDOFF_H_
#define POPLAR_SIM_HOST_HANDOFF_H_

#include <cstdint>

namespace poplar_sim {
namespace internal {

// The median time for a cache line to go from one host thread to another
// and back, measured once per process (two threads taking turns on one
// atomic for at most a few milliseconds, once the second thread has
// started: up to 50 ms more); 0 when it could not be measured (one core,
// or the two threads did not get a core each).
uint64_t HostHandOffRoundTripNs();

// The same measurement, made now and within `budgetMicros`; 0 as above.
uint64_t MeasureHostHandOffRoundTripNs(unsigned budgetMicros);

// Above this round trip a hand-off is slow (the machines described above).
inline constexpr uint64_t kSlowHandOffNs = 100;
// debug.minLaneWork's default: 200,000 (flops and copied elements beside a
// sequence's longest chain), or 20 times that when the hand-off is slow or
// unmeasured (0): a machine that cannot give two threads a core each for a
// few milliseconds would make every lane wait for one.
uint64_t DefaultMinLaneWork(uint64_t roundTripNs);

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_HOST_HANDOFF_H_
