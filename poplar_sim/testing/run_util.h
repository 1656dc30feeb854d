// Runs a graph built by a test in both execution modes (bulk executors and
// vertex-by-vertex compute()) and checks that they agree; or once, with
// host threads.
#ifndef POPLAR_SIM_TESTING_RUN_UTIL_H_
#define POPLAR_SIM_TESTING_RUN_UTIL_H_

#include <functional>
#include <vector>

#include "poplar_sim/engine.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/option_flags.h"
#include "poplar_sim/program.h"

namespace poplar_sim {
namespace testing {

using BuildFn =
    std::function<std::vector<Tensor>(Graph&, program::Sequence&)>;

// Builds the graph twice on an IPU Model of `tiles` tiles, runs it once in
// each mode, EXPECTs the outputs to agree within `tolerance` (0 = exactly),
// and returns the bulk-mode values of the returned tensors as doubles.
std::vector<std::vector<double>> RunBothModes(const BuildFn& build,
                                              unsigned tiles = 4,
                                              double tolerance = 0);

// Builds the graph on an IPU Model of `tiles` tiles, runs it once with
// `options` and `threads` (Engine::setHostThreads; nullptr: none), and
// returns the values of the returned tensors as doubles.
std::vector<std::vector<double>> RunOnce(const BuildFn& build, unsigned tiles,
                                         const OptionFlags& options = {},
                                         HostThreads* threads = nullptr);

}  // namespace testing
}  // namespace poplar_sim

#endif  // POPLAR_SIM_TESTING_RUN_UTIL_H_
