// What the pipelining converters need from the rest of `convert ... ipu`,
// and the steps they share: where their files go, whether a solution fits
// the IPUs, and running a solution on the simulator to profile it.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONTEXT_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONTEXT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/saved_model/proto/saved_model.pb.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/node_costs.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_solution.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

struct PipelineContext {
  // --num_ipus: the IPUs the converted model may use (manual and load; the
  // auto converter chooses its own number).
  int num_ipus = 1;
  // --batch_size: the batch of inputs whose first dimension is unknown.
  int64_t batch_size = 1;
  // --batch_per_step (0: 1), recorded; see docs/saved_model_cli.md.
  int64_t batch_per_step = 0;
  // solution_dir, profiling_root_dir and a relative solution_path are
  // relative to this directory (the current one when empty).
  std::string working_dir;
};

// `path` under context.working_dir unless it is absolute.
std::string ResolvePath(const PipelineContext& context, const std::string& path);

// InvalidArgument when a stage's IPU is not below `num_ipus`.
absl::Status CheckDevicesFit(const PipelineSolution& solution, int num_ipus,
                             const std::string& source);

// The IPUs a solution needs: its highest IPU + 1.
int IpusNeeded(const PipelineSolution& solution);

// Applies `solution` to a copy of `graph`, runs it once on the simulator
// with IpusNeeded(solution) IPUs and reports into `report_dir`, and
// summarises the profile.
absl::StatusOr<ProfileSummary> ProfileSolution(const GraphDef& graph, const SignatureDef& signature,
                                               const ServingGraph& serving,
                                               const PipelineSolution& solution,
                                               const PipelineContext& context,
                                               const std::string& report_dir);

// What the manual and load converters do with their solution: profile it
// on the simulator when `profile` is set (the report under
// <profiling_root_dir>/<report_prefix>-<IPUs>-b<batch_size>), then apply it
// to `graph`, which is left unchanged on error.
absl::Status ProfileAndApply(const PipelineSolution& solution, const ServingGraph& serving,
                             const PipelineContext& context, bool profile,
                             const std::string& profiling_root_dir,
                             const std::string& report_prefix, const SignatureDef& signature,
                             GraphDef* graph);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONTEXT_H_
