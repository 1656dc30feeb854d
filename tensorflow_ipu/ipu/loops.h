// ipu::loops::repeat: an on-device loop, as the vendor's TF1 port's
// ipu.loops.repeat. The body runs `n` times inside one IPU executable, so a
// training loop of n steps costs one host round trip instead of n.
//
//   auto body = [&](const Scope& s, const std::vector<Output>& carried,
//                   const std::vector<Output>& infeed) -> std::vector<Output> {
//     return {ops::Add(s, carried[0], infeed[0])};        // new carried values
//   };
//   ASSIGN_OR_RETURN(std::vector<Output> out,
//                    ipu::loops::repeat(ipu, 10, body, {zero}, &infeed));
//
// The body takes the carried values (initially `inputs`), then the infeed's
// element when an infeed is given, and returns the next carried values (the
// same number, dtypes and shapes). repeat returns the values after the last
// iteration; with no carried values it returns one Output of an op that
// runs the loop (use `.op()` as a target). Ops with side effects in the body
// (variable updates, outfeed enqueues) run every iteration.
//
// Errors: n < 1, carried values that change dtype or shape, an
// outside_compilation_scope inside the body (Unimplemented: the body cannot
// leave the device), or a body built off the IPU.
#ifndef TENSORFLOW_IPU_IPU_LOOPS_H_
#define TENSORFLOW_IPU_IPU_LOOPS_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/ipu/feeds.h"

namespace tensorflow_ipu {
namespace ipu {
namespace loops {

using LoopBody = std::function<std::vector<Output>(
    const Scope&, const std::vector<Output>& carried,
    const std::vector<Output>& infeed_element)>;

// Ops in the graph collection kLoopSideEffectsPrefix + id (core/ipu_attrs.h)
// run once each Run of loop <id>, after it (e.g. a global_step increment).

absl::StatusOr<std::vector<Output>> repeat(
    const Scope& scope, int n, const LoopBody& body,
    const std::vector<Output>& inputs = {},
    const IPUInfeedQueue* infeed_queue = nullptr);

}  // namespace loops
}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IPU_LOOPS_H_
