// GradientAccumulation: the weight update of gradient accumulation runs
// once every N iterations of its loop (train::GradientAccumulationOptimizerV2
// marks it with the attr "_ipu_gradient_accumulation" = N).
//
// Runs after loop formation. In each loop, ops fall into three phases:
//  - the update: the marked ops and every op that reads a value of one (by
//    data, transitively), and the NoOps that wait for one (a NoOp does
//    nothing, so running it less often loses nothing: the loop's body_end)
//    unless they also wait for an op after the update. They get
//    ClusterOp::accumulation_count = N and run once every N iterations,
//    after the N-th.
//  - after the update: the other ops that wait for an update op (a control
//    dependency, as an outfeed of the step's loss that waits for
//    minimize) or depend on such an op. They get ClusterOp::after_update
//    and run every iteration, after the update in the iterations that end
//    with one. A control dependency orders ops; it never makes one run
//    less often, which would drop the records of N - 1 of every N
//    mini-batches from an outfeed.
//  - the body: the rest, every iteration.
// Each phase keeps its order and they follow each other in the loop's run
// of ops, so the emitter can run
//   Repeat(iterations / N, {Repeat(N - 1, {body, after}), body, update, after})
// (or, with nothing after the update, Repeat(iterations / N,
// {Repeat(N, body), update})).
//
// Errors, as the vendor's gradient accumulation verifier reports them:
//  - a marked op outside any loop ("... not inside a training loop");
//  - a loop whose iteration count is not a multiple of N (naming both);
//  - two different N in one loop.
// And FailedPrecondition naming the ops for:
//  - an op of the update phase that also depends on an op after the update
//    (it would have to run both once per update and every iteration);
//  - an op after the update in a pipeline, whose micro-batches all run
//    before the update.
#ifndef TENSORFLOW_IPU_COMPILER_GRADIENT_ACCUMULATION_H_
#define TENSORFLOW_IPU_COMPILER_GRADIENT_ACCUMULATION_H_

#include "tensorflow_ipu/compiler/pass.h"

namespace tensorflow_ipu {
namespace compiler {

class GradientAccumulation : public ClusterPass {
 public:
  absl::string_view name() const override { return "gradient-accumulation"; }
  absl::StatusOr<bool> Run(ClusterIr* ir) override;
};

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_GRADIENT_ACCUMULATION_H_
