#include "tensorflow_ipu/pipelining/pipelining_ops.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/gradient_accumulation_ops.h"
#include "tensorflow_ipu/ipu/loops.h"

namespace tensorflow_ipu {
namespace ipu {
namespace pipelining_ops {
namespace {

std::string Names(const std::vector<Output>& outputs) {
  std::vector<std::string> names;
  for (const Output& o : outputs) names.push_back(o.name());
  return absl::StrJoin(names, ", ");
}

absl::Status Validate(const std::vector<ComputationalStage>& stages, int depth,
                      int repeat_count, const std::vector<int>& device_mapping,
                      PipelineSchedule schedule, bool training,
                      const IPUOutfeedQueue* outfeed_queue, const PipelineOptions& options) {
  if (stages.size() < 2) {
    return absl::InvalidArgumentError("Pipeline requires at least two computational stages.");
  }
  for (size_t k = 0; k < stages.size(); ++k) {
    if (!stages[k]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Computational stage ", k, " is empty; give every stage a function"));
    }
  }
  if (device_mapping.size() != stages.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Each stage must be mapped to an IPU: ", device_mapping.size(),
        " mappings != ", stages.size(), " stages"));
  }
  for (size_t k = 0; k < device_mapping.size(); ++k) {
    if (device_mapping[k] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device_mapping[", k, "] is ", device_mapping[k],
          "; map each stage to an IPU index of 0 or more"));
    }
  }
  if (depth < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gradient_accumulation_count must be at least 1, but it is ", depth));
  }
  if (repeat_count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("repeat_count must be at least 1, but it is ", repeat_count));
  }
  if (static_cast<int64_t>(depth) * repeat_count > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gradient_accumulation_count x repeat_count = ",
        static_cast<int64_t>(depth) * repeat_count,
        " micro-batches per run is more than a loop can count (2^31 - 1); run the "
        "pipeline several times instead"));
  }
  if (schedule == PipelineSchedule::Interleaved && training) {
    std::vector<int> sorted = device_mapping;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return absl::UnimplementedError(
          "The pipelining schedule 'Interleaved' does not currently support multiple "
          "pipeline stages on the same device for training graphs. Please use a "
          "different pipeline schedule.");
    }
  }
  if (options.outfeed_loss && !training) {
    return absl::InvalidArgumentError(
        "An optimizer_function must be provided when outfeed_loss is True.");
  }
  if (options.outfeed_loss && outfeed_queue == nullptr) {
    return absl::InvalidArgumentError(
        "An outfeed_queue must be provided when outfeed_loss is True");
  }
  if (options.accumulate_outfeed) {
    if (outfeed_queue == nullptr) {
      return absl::InvalidArgumentError(
          "An outfeed_queue must be provided when accumulate_outfeed is True.");
    }
    if (outfeed_queue->mode() != OutfeedMode::kAll) {
      return absl::InvalidArgumentError(
          "To accumulate the outfeed, it must be in IPUOutfeedMode ALL.");
    }
  }
  return absl::OkStatus();
}

// accumulate_outfeed: each value is summed over `depth` micro-batches by
// ipu_stateful_gradient_accumulate in the last stage's forward pass; the
// sums, and so their enqueue, run once per weight update (the update phase
// of gradient accumulation).
absl::Status EnqueueAccumulated(const Scope& last_stage, const std::vector<Output>& values,
                                int depth, IPUOutfeedQueue& outfeed) {
  std::vector<Output> sums;
  for (const Output& v : values) {
    ASSIGN_OR_RETURN(Output sum, ops::ipu_stateful_gradient_accumulate(
                                     last_stage, v, depth, /*verify_usage=*/false));
    sums.push_back(sum);
  }
  outfeed.enqueue(last_stage, sums);
  return last_stage.status();
}

}  // namespace

absl::StatusOr<Operation> pipeline(
    const Scope& scope, const std::vector<ComputationalStage>& computational_stages,
    int gradient_accumulation_count, int repeat_count, const std::vector<Output>& inputs,
    const IPUInfeedQueue* infeed_queue, IPUOutfeedQueue* outfeed_queue,
    const OptimizerFunction& optimizer_function, const std::vector<int>& device_mapping,
    PipelineSchedule pipeline_schedule, const PipelineOptions& options) {
  RETURN_IF_ERROR(scope.status());
  std::vector<int> mapping = device_mapping;
  if (mapping.empty()) {
    for (size_t k = 0; k < computational_stages.size(); ++k) {
      mapping.push_back(static_cast<int>(k));
    }
  }
  const bool training = static_cast<bool>(optimizer_function);
  RETURN_IF_ERROR(Validate(computational_stages, gradient_accumulation_count, repeat_count,
                           mapping, pipeline_schedule, training, outfeed_queue, options));
  const int num_stages = static_cast<int>(computational_stages.size());
  // Every op of the loop tells the compiler which pipeline it belongs to
  // (compiler/pipeline_formation.h).
  const Scope pipeline_scope =
      scope.NewSubScope("pipeline")
          .WithAttr(kPipelineDepthAttr,
                    MakeAttrValue(static_cast<int64_t>(gradient_accumulation_count)))
          .WithAttr(kPipelineStagesAttr, MakeAttrValue(static_cast<int64_t>(num_stages)))
          .WithAttr(kPipelineScheduleAttr,
                    MakeAttrValue(static_cast<int64_t>(pipeline_schedule)));
  absl::Status body_status;
  auto body = [&](const Scope& s, const std::vector<Output>&,
                  const std::vector<Output>& element) -> std::vector<Output> {
    std::vector<Output> args = inputs;
    args.insert(args.end(), element.begin(), element.end());
    Scope last_stage = s;
    for (int k = 0; k < num_stages; ++k) {
      last_stage = s.NewSubScope(absl::StrCat("stage_", k))
                       .WithAttr(kShardAttr, MakeAttrValue(static_cast<int64_t>(mapping[k])))
                       .WithAttr(kPipelineStageAttr, MakeAttrValue(static_cast<int64_t>(k)));
      args = computational_stages[k](last_stage, args);
      if (!s.status().ok()) return {};
    }
    std::vector<Output> to_outfeed = args;
    if (training) {
      OptimizerFunctionOutput out = optimizer_function(s.NewSubScope("optimizer"), args);
      if (!s.status().ok()) return {};
      if (out.opt == nullptr || !out.loss.valid()) {
        body_status = absl::InvalidArgumentError(
            "optimizer_function returned no optimizer or no loss; return "
            "OptimizerFunctionOutput(optimizer, loss)");
        return {};
      }
      if (options.outfeed_loss) to_outfeed = {out.loss};
      // The gradients of a stage's ops join that stage (cc/gradients);
      // the update runs once per gradient_accumulation_count micro-batches.
      train::GradientAccumulationOptimizerV2 accumulate(
          *out.opt, gradient_accumulation_count, options.reduction_method);
      absl::StatusOr<Operation> step = accumulate.minimize(s.NewSubScope("optimizer"), out.loss);
      if (!step.ok()) {
        body_status = step.status();
        return {};
      }
    }
    if (!to_outfeed.empty()) {
      if (outfeed_queue == nullptr) {
        body_status = absl::InvalidArgumentError(absl::StrCat(
            "The last computational stage has tensor outputs: ", Names(to_outfeed),
            ", but no outfeed_queue has been provided."));
        return {};
      }
      if (options.accumulate_outfeed) {
        body_status = EnqueueAccumulated(last_stage, to_outfeed, gradient_accumulation_count,
                                         *outfeed_queue);
        if (!body_status.ok()) return {};
      } else {
        // In the last stage's forward pass, once per micro-batch.
        outfeed_queue->enqueue(last_stage, to_outfeed);
      }
    }
    return {};
  };
  absl::StatusOr<std::vector<Output>> loop = loops::repeat(
      pipeline_scope, gradient_accumulation_count * repeat_count, body, {}, infeed_queue);
  RETURN_IF_ERROR(body_status);
  RETURN_IF_ERROR(loop.status());
  return loop->at(0).op();
}

}  // namespace pipelining_ops
}  // namespace ipu
}  // namespace tensorflow_ipu
