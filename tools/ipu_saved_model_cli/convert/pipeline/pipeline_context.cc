#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_context.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/simulated_run.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

std::string ResolvePath(const PipelineContext& context, const std::string& path) {
  if (context.working_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(context.working_dir) / path).string();
}

int IpusNeeded(const PipelineSolution& solution) {
  int highest = 0;
  for (int ipu : solution.device_mapping) highest = std::max(highest, ipu);
  return highest + 1;
}

absl::Status CheckDevicesFit(const PipelineSolution& solution, int num_ipus,
                             const std::string& source) {
  for (int s = 0; s < solution.num_stages(); ++s) {
    if (solution.device_mapping[s] >= num_ipus) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pipeline stage ", s, " of ", source, " runs on IPU ", solution.device_mapping[s],
          ", but num_ipus is ", num_ipus, "; convert with --num_ipus ", IpusNeeded(solution),
          " or map the stage to a lower IPU"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ProfileSummary> ProfileSolution(const GraphDef& graph, const SignatureDef& signature,
                                               const ServingGraph& serving,
                                               const PipelineSolution& solution,
                                               const PipelineContext& context,
                                               const std::string& report_dir) {
  GraphDef staged = graph;
  RETURN_IF_ERROR(ApplySolution(solution, &staged));
  SimulatedRunOptions options;
  options.num_ipus = IpusNeeded(solution);
  options.batch_size = context.batch_size;
  options.report_dir = report_dir;
  ASSIGN_OR_RETURN(SimulatedRun run, RunOnSimulator(staged, signature, options));
  return SummarizeProfiles(run.profiles, serving);
}

absl::Status ProfileAndApply(const PipelineSolution& solution, const ServingGraph& serving,
                             const PipelineContext& context, bool profile,
                             const std::string& profiling_root_dir,
                             const std::string& report_prefix, const SignatureDef& signature,
                             GraphDef* graph) {
  if (profile) {
    const std::string report_dir =
        ResolvePath(context, absl::StrCat(profiling_root_dir, "/", report_prefix, "-",
                                          IpusNeeded(solution), "-b", context.batch_size));
    RETURN_IF_ERROR(
        ProfileSolution(*graph, signature, serving, solution, context, report_dir).status());
  }
  GraphDef staged = *graph;
  RETURN_IF_ERROR(ApplySolution(solution, &staged));
  *graph = std::move(staged);
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
