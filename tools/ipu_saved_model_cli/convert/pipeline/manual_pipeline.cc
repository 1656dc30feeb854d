#include "tools/ipu_saved_model_cli/convert/pipeline/manual_pipeline.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/node_patterns.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::StatusOr<std::map<std::string, int>> MatchStages(
    const ServingGraph& graph, const std::vector<std::vector<std::string>>& regexes_per_stage) {
  // RE2, as every other node pattern of the converter: a user's pattern
  // is matched in time linear in the name, never backtracking.
  std::vector<NodePatterns> compiled;
  for (size_t s = 0; s < regexes_per_stage.size(); ++s) {
    ASSIGN_OR_RETURN(NodePatterns patterns,
                     NodePatterns::Compile(regexes_per_stage[s],
                                           absl::StrCat("pipeline stage ", s,
                                                        " of manual_pipeline_config")));
    compiled.push_back(std::move(patterns));
  }
  std::map<std::string, int> stages;
  for (const std::string& node : graph.compute_order()) {
    int stage = -1;
    for (size_t s = 0; s < compiled.size(); ++s) {
      // re.match: anchored at the start, free at the end.
      if (compiled[s].MatchAtStart(node)) stage = static_cast<int>(s);
    }
    if (stage < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The node `", node,
          "` is not fully set with `pipeline_stage`: no regular expression "
          "of manual_pipeline_config matches it (they match at the start of the name, like "
          "Python's re.match)"));
    }
    stages[node] = stage;
  }
  std::vector<bool> used(compiled.size(), false);
  for (const auto& [node, stage] : stages) used[stage] = true;
  for (size_t s = 0; s < used.size(); ++s) {
    if (!used[s]) {
      return absl::InvalidArgumentError(
          absl::StrCat("pipeline stage ", s,
                       " of manual_pipeline_config has no node: its regular "
                       "expressions match none, or only nodes that a later stage's match too"));
    }
  }
  return stages;
}

absl::Status ManualPipeline::Apply(GraphDef* graph, SignatureDef* signature) {
  ASSIGN_OR_RETURN(ServingGraph serving, ServingGraph::Make(*graph, *signature));
  ASSIGN_OR_RETURN(auto stages, MatchStages(serving, config_.manual_pipeline_config));
  ASSIGN_OR_RETURN(PipelineSolution solution, MakeSolution(serving, stages, config_.device_info));
  RETURN_IF_ERROR(CheckDevicesFit(solution, context_.num_ipus, "manual_pipeline_config"));
  const std::string path = ResolvePath(context_, config_.solution_dir + "/manual.pipeconfig");
  RETURN_IF_ERROR(WriteSolutionFile(path, solution));
  RETURN_IF_ERROR(ProfileAndApply(solution, serving, context_, config_.profiling_enable,
                                  config_.profiling_root_dir, "manual_pipeline", *signature,
                                  graph));
  solution_path_ = path;
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
