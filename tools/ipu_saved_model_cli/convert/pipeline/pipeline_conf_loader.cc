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
  return ProfileAndApply(solution, serving, context_, config_.profiling_enable,
                         config_.profiling_root_dir, "pipeline_loader", *signature, graph);
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
