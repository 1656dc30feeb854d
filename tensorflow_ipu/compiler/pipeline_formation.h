// PipelineFormation: gives every op of a pipelined loop
// (ipu::pipelining_ops::pipeline) its unit, the forward or backward pass
// of one stage (pipeline_timetable.h), and checks the vendor's rules.
//
// Runs after gradient accumulation. The pipeline's ops carry the attrs of
// core/ipu_attrs.h: every op of the loop kPipelineDepthAttr,
// kPipelineStagesAttr and kPipelineScheduleAttr; the ops a stage function
// built kPipelineStageAttr; their gradients also kPipelineBackwardAttr
// (cc/gradients gives a gradient op its forward op's placement). Other ops
// of the loop (the optimizer's accumulation, an inter-IPU copy, the infeed)
// join the latest unit they read from; an op that reads from none, and
// every inter-IPU copy, joins the first unit that reads it, so a copy runs
// where its value is needed and not in the middle of its producer's slot.
// The weight update (ClusterOp::accumulation_count > 0) stays outside the
// units: it runs once per pipeline run.
//
// Errors:
//  - FailedPrecondition, as the vendor's pipeline verifier words it, when
//    the depth (gradient_accumulation_count) is below the schedule's
//    overlap length or not a multiple of it;
//  - InvalidArgument when an op reads a value of the same micro-batch that
//    a later unit computes, or when stages mapped to different IPUs share a
//    variable.
// A Sequential pipeline runs as an ordinary (sharded) loop: its ops get no
// unit.
#ifndef TENSORFLOW_IPU_COMPILER_PIPELINE_FORMATION_H_
#define TENSORFLOW_IPU_COMPILER_PIPELINE_FORMATION_H_

#include "tensorflow_ipu/compiler/pass.h"

namespace tensorflow_ipu {
namespace compiler {

class PipelineFormation : public ClusterPass {
 public:
  absl::string_view name() const override { return "pipeline-formation"; }
  absl::StatusOr<bool> Run(ClusterIr* ir) override;
};

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_PIPELINE_FORMATION_H_
