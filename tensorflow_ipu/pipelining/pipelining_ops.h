// ipu::pipelining_ops::pipeline: a model split into stages on several IPUs
// that work on different micro-batches at the same time, as the vendor's
// TF1 port's ipu.pipelining_ops.pipeline.
//
//   auto stage1 = [&](const Scope& s, const std::vector<Output>& in) {
//     return std::vector<Output>{Dense(s, in[0], 256), in[1]};   // x, labels
//   };
//   auto stage2 = [&](const Scope& s, const std::vector<Output>& in) {
//     return std::vector<Output>{Loss(s, in[0], in[1])};
//   };
//   train::GradientDescentOptimizer sgd(0.01);
//   auto optimizer_function = [&](const Scope& s, const std::vector<Output>& out) {
//     return pipelining_ops::OptimizerFunctionOutput(sgd, out[0]);
//   };
//   // inside ipu_compiler::compile, under ipu_scope:
//   ASSIGN_OR_RETURN(Operation op, pipelining_ops::pipeline(
//       s, {stage1, stage2}, /*gradient_accumulation_count=*/8,
//       /*repeat_count=*/2, /*inputs=*/{}, &infeed, &outfeed, optimizer_function));
//
// Each Run processes repeat_count x gradient_accumulation_count
// micro-batches from the infeed. Stage 0 takes `inputs` followed by the
// infeed's element; stage k > 0 takes what stage k - 1 returns. Stage k runs
// on IPU device_mapping[k] (default: IPU k). When training, the gradients
// of gradient_accumulation_count micro-batches are accumulated
// (reduction_method) and the optimizer applies them once, so a pipelined
// model trains exactly like the same model unpipelined with
// GradientAccumulationOptimizerV2. The outfeed gets the last stage's outputs
// (or the loss, with outfeed_loss) once per micro-batch.
//
// Schedules: Grouped (default), Interleaved and Sequential (a sharded run
// without overlap, for debugging); how they lay out the stages in time is
// in compiler/pipeline_timetable.h, the numbers they need in docs/multi_ipu.md.
//
// Errors, with the vendor's wording: fewer than two stages; a device_mapping
// whose length is not the number of stages; a last stage with outputs and no
// outfeed_queue; outfeed_loss without an optimizer_function or an outfeed;
// accumulate_outfeed without an outfeed in mode ALL; when the cluster compiles, a
// gradient_accumulation_count that is not at least and a multiple of the
// schedule's overlap (2N for Grouped training, N for Grouped inference and
// Interleaved, 1 for Sequential); stages sharing a variable on different IPUs.
#ifndef TENSORFLOW_IPU_PIPELINING_PIPELINING_OPS_H_
#define TENSORFLOW_IPU_PIPELINING_PIPELINING_OPS_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/train/gradient_accumulation_optimizer.h"  // train::Optimizer

namespace tensorflow_ipu {
namespace ipu {
namespace pipelining_ops {

// As the vendor numbers them.
enum class PipelineSchedule { Grouped = 0, Interleaved = 1, Sequential = 2 };

// One computational stage: takes the previous stage's outputs, returns its
// own.
using ComputationalStage =
    std::function<std::vector<Output>(const Scope&, const std::vector<Output>&)>;

// What an optimizer_function returns: the optimizer (which must outlive the
// pipeline() call) and the loss it minimises.
struct OptimizerFunctionOutput {
  OptimizerFunctionOutput(train::Optimizer& opt, Output loss) : opt(&opt), loss(loss) {}
  train::Optimizer* opt;
  Output loss;
};

// Takes the last stage's outputs.
using OptimizerFunction =
    std::function<OptimizerFunctionOutput(const Scope&, const std::vector<Output>&)>;

// The options after pipeline_schedule, as keyword arguments of the vendor's
// function.
struct PipelineOptions {
  train::GradientAccumulationReductionMethod reduction_method =
      train::GradientAccumulationReductionMethod::SUM;
  // Outfeed the loss that optimizer_function returns instead of the last
  // stage's outputs.
  bool outfeed_loss = false;
  // Outfeed the sum of what would be outfed over gradient_accumulation_count
  // micro-batches, once per weight update (repeat_count records per run)
  // instead of once per micro-batch. Needs an outfeed in mode ALL.
  bool accumulate_outfeed = false;
};

// Returns the op that runs the pipeline (a target for Session::Run).
absl::StatusOr<Operation> pipeline(
    const Scope& scope, const std::vector<ComputationalStage>& computational_stages,
    int gradient_accumulation_count, int repeat_count = 1,
    const std::vector<Output>& inputs = {}, const IPUInfeedQueue* infeed_queue = nullptr,
    IPUOutfeedQueue* outfeed_queue = nullptr,
    const OptimizerFunction& optimizer_function = nullptr,
    const std::vector<int>& device_mapping = {},
    PipelineSchedule pipeline_schedule = PipelineSchedule::Grouped,
    const PipelineOptions& options = {});

}  // namespace pipelining_ops
}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_PIPELINING_PIPELINING_OPS_H_
