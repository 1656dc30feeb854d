#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_solution.h"

#include <algorithm>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/json_file.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

constexpr char kPipelineMappingKey[] = "pipeline_mapping";
constexpr char kDeviceMappingKey[] = "device_mapping";

// A non-negative int of JSON; false for anything else (floats, huge numbers).
bool SmallNonNegativeInt(const nlohmann::json& v, int* out) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int>::max())) return false;
    *out = static_cast<int>(u);
    return true;
  }
  const int64_t i = v.get<int64_t>();
  if (i < 0 || i > std::numeric_limits<int>::max()) return false;
  *out = static_cast<int>(i);
  return true;
}

}  // namespace

absl::Status ValidateSolution(const ServingGraph& graph, const PipelineSolution& solution,
                              const std::string& source) {
  int max_stage = -1;
  for (const auto& [node, stage] : solution.pipeline_mapping) {
    if (!graph.Has(node)) {
      return absl::InvalidArgumentError(absl::StrCat("node '", node, "' of pipeline_mapping in ",
                                                     source, " is not in the graph"));
    }
    max_stage = std::max(max_stage, stage);
  }
  for (const std::string& node : graph.compute_order()) {
    if (solution.pipeline_mapping.count(node) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The node `", node, "` is not fully set with `pipeline_stage` in ", source,
          ": every node but the signature inputs and Const, Identity and Pack needs a stage"));
    }
  }
  std::vector<bool> used(max_stage + 1, false);
  for (const auto& [node, stage] : solution.pipeline_mapping) used[stage] = true;
  for (int s = 0; s <= max_stage; ++s) {
    if (!used[s]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pipeline stage ", s, " of ", source, " has no node: stages must be numbered from 0 to ",
          max_stage, " without gaps"));
    }
  }
  if (static_cast<int>(solution.device_mapping.size()) != max_stage + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("The length of the device info given (", solution.device_mapping.size(),
                     ") must be equal to the number of pipeline stages (", max_stage + 1, ")."));
  }
  for (const std::string& node : graph.order()) {
    auto own = solution.pipeline_mapping.find(node);
    if (own == solution.pipeline_mapping.end()) continue;
    for (const std::string& input : graph.inputs(node)) {
      if (graph.signature_inputs().count(input) > 0) continue;
      auto theirs = solution.pipeline_mapping.find(input);
      const int input_stage = theirs == solution.pipeline_mapping.end() ? -1 : theirs->second;
      if (theirs == solution.pipeline_mapping.end() || input_stage > own->second) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The pipeline stages of ", source, " are not in topology order: node '", node,
            "' (stage ", own->second, ") reads '", input, "' (",
            input_stage < 0 ? std::string("no stage") : absl::StrCat("stage ", input_stage),
            "); a stage may read only the signature inputs and nodes of its own or earlier "
            "stages"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PipelineSolution> MakeSolution(const ServingGraph& graph,
                                              const std::map<std::string, int>& compute_stages,
                                              std::vector<int> device_mapping) {
  PipelineSolution solution;
  solution.pipeline_mapping = graph.CompleteStages(compute_stages);
  // The file lists every node, as the original's does: a signature input
  // (streamed from the host, so it has no stage of its own to run in) is
  // listed with the first stage that reads it.
  for (const std::string& input : graph.signature_inputs()) {
    int stage = -1;
    for (const std::string& reader : graph.consumers(input)) {
      auto it = solution.pipeline_mapping.find(reader);
      if (it != solution.pipeline_mapping.end() && (stage < 0 || it->second < stage)) {
        stage = it->second;
      }
    }
    if (graph.Has(input)) solution.pipeline_mapping[input] = std::max(stage, 0);
  }
  solution.device_mapping = std::move(device_mapping);
  RETURN_IF_ERROR(ValidateSolution(graph, solution, "the pipeline solution"));
  return solution;
}

nlohmann::json SolutionToJson(const PipelineSolution& solution) {
  nlohmann::json mapping = nlohmann::json::object();
  for (const auto& [node, stage] : solution.pipeline_mapping) mapping[node] = stage;
  return nlohmann::json{{kPipelineMappingKey, mapping},
                        {kDeviceMappingKey, solution.device_mapping}};
}

absl::StatusOr<PipelineSolution> SolutionFromJson(const nlohmann::json& json,
                                                  const ServingGraph& graph,
                                                  const std::string& source) {
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, " must hold a JSON object with pipeline_mapping and device_mapping, not ",
        JsonTypeName(json)));
  }
  for (const auto& [key, value] : json.items()) {
    if (key != kPipelineMappingKey && key != kDeviceMappingKey) {
      return absl::InvalidArgumentError(
          absl::StrCat("Unknown key '", key, "' in ", source,
                       "; a solution has the keys pipeline_mapping and device_mapping"));
    }
  }
  auto mapping = json.find(kPipelineMappingKey);
  if (mapping == json.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, " has no pipeline_mapping (node name -> pipeline stage)"));
  }
  if (!mapping->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pipeline_mapping in ", source, " must be an object (node name -> pipeline stage), not ",
        JsonTypeName(*mapping)));
  }
  PipelineSolution solution;
  int max_stage = -1;
  for (const auto& [node, stage] : mapping->items()) {
    int s = 0;
    if (!SmallNonNegativeInt(stage, &s)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the stage of node '", node, "' in ", source, " must be an integer >= 0, not ",
          stage.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    }
    solution.pipeline_mapping[node] = s;
    max_stage = std::max(max_stage, s);
  }
  // Pass-through nodes the file leaves out follow their consumers.
  std::map<std::string, int> complete = graph.CompleteStages(solution.pipeline_mapping);
  for (const auto& [node, stage] : complete) solution.pipeline_mapping.emplace(node, stage);
  auto devices = json.find(kDeviceMappingKey);
  if (devices == json.end()) {
    for (int s = 0; s <= max_stage; ++s) solution.device_mapping.push_back(s);
  } else {
    if (!devices->is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat("device_mapping in ", source,
                       " must be an array (the IPU of each stage), not ", JsonTypeName(*devices)));
    }
    for (size_t i = 0; i < devices->size(); ++i) {
      int ipu = 0;
      if (!SmallNonNegativeInt((*devices)[i], &ipu)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "device_mapping[", i, "] in ", source, " must be an IPU number >= 0, not ",
            (*devices)[i].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
      }
      solution.device_mapping.push_back(ipu);
    }
  }
  RETURN_IF_ERROR(ValidateSolution(graph, solution, source));
  return solution;
}

absl::Status WriteSolutionFile(const std::string& path, const PipelineSolution& solution) {
  return WriteJsonFile(path, SolutionToJson(solution));
}

absl::StatusOr<PipelineSolution> ReadSolutionFile(const std::string& path,
                                                  const ServingGraph& graph) {
  const std::string source = absl::StrCat("solution file ", path);
  ASSIGN_OR_RETURN(nlohmann::json json, ReadJsonFile(path, source));
  return SolutionFromJson(json, graph, source);
}

absl::Status ApplySolution(const PipelineSolution& solution, GraphDef* graph) {
  bool any_on_ipu = false;
  for (const NodeDef& node : graph->node()) {
    if (!absl::StrContains(node.device(), "IPU")) continue;
    any_on_ipu = true;
    auto it = solution.pipeline_mapping.find(node.name());
    if (it == solution.pipeline_mapping.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name(), "' is on an IPU but has no pipeline stage"));
    }
    if (it->second >= solution.num_stages()) {
      return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' has stage ",
                                                     it->second, " of ", solution.num_stages()));
    }
  }
  if (!any_on_ipu) {
    return absl::FailedPreconditionError(
        "No ops placed on IPU device to pipeline: convert with IPU placement (without "
        "--no_ipu_placement)");
  }
  for (NodeDef& node : *graph->mutable_node()) {
    if (!absl::StrContains(node.device(), "IPU")) continue;
    const int stage = solution.pipeline_mapping.at(node.name());
    auto& attrs = *node.mutable_attr();
    attrs[kPipelineStageAttr] = MakeAttrValue(static_cast<int64_t>(stage));
    attrs[kShardAttr] = MakeAttrValue(static_cast<int64_t>(solution.device_mapping[stage]));
  }
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
