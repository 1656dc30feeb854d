#include "tools/ipu_saved_model_cli/convert/pipeline/manual_pipeline.h"

#include <regex>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::StatusOr<std::map<std::string, int>> MatchStages(
    const ServingGraph& graph, const std::vector<std::vector<std::string>>& regexes_per_stage) {
  std::vector<std::vector<std::regex>> compiled(regexes_per_stage.size());
  for (size_t s = 0; s < regexes_per_stage.size(); ++s) {
    for (const std::string& r : regexes_per_stage[s]) {
      // std::regex reports a bad pattern by throwing; it stops here.
      try {
        compiled[s].emplace_back(r, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return absl::InvalidArgumentError(
            absl::StrCat("regular expression \"", r, "\" of pipeline stage ", s,
                         " in manual_pipeline_config is not valid: ", e.what()));
      }
    }
  }
  std::map<std::string, int> stages;
  for (const std::string& node : graph.compute_order()) {
    int stage = -1;
    for (size_t s = 0; s < compiled.size(); ++s) {
      for (const std::regex& r : compiled[s]) {
        // re.match: anchored at the start, free at the end.
        if (std::regex_search(node, r, std::regex_constants::match_continuous)) {
          stage = static_cast<int>(s);
          break;
        }
      }
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
  if (config_.profiling_enable) {
    const std::string report_dir =
        ResolvePath(context_, absl::StrCat(config_.profiling_root_dir, "/manual_pipeline-",
                                           IpusNeeded(solution), "-b", context_.batch_size));
    RETURN_IF_ERROR(
        ProfileSolution(*graph, *signature, serving, solution, context_, report_dir).status());
  }
  GraphDef staged = *graph;
  RETURN_IF_ERROR(ApplySolution(solution, &staged));
  *graph = std::move(staged);
  solution_path_ = path;
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
