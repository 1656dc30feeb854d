#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_conf_loader.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::Status PipelineConfLoader::Apply(GraphDef* graph, SignatureDef* signature) {
  ASSIGN_OR_RETURN(ServingGraph serving, ServingGraph::Make(*graph, *signature));
  const std::string path = ResolvePath(context_, config_.solution_path);
  ASSIGN_OR_RETURN(PipelineSolution solution, ReadSolutionFile(path, serving));
  RETURN_IF_ERROR(
      CheckDevicesFit(solution, context_.num_ipus, absl::StrCat("solution file ", path)));
  if (config_.profiling_enable) {
    const std::string report_dir =
        ResolvePath(context_, absl::StrCat(config_.profiling_root_dir, "/pipeline_loader-",
                                           IpusNeeded(solution), "-b", context_.batch_size));
    RETURN_IF_ERROR(
        ProfileSolution(*graph, *signature, serving, solution, context_, report_dir).status());
  }
  GraphDef staged = *graph;
  RETURN_IF_ERROR(ApplySolution(solution, &staged));
  *graph = std::move(staged);
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
