// The solution file of pipelining: which pipeline stage every node of the
// serving graph belongs to, and which IPU every stage runs on.
//
//   {"device_mapping": [0, 1],
//    "pipeline_mapping": {"dense_0/MatMul": 0, "dense_0/kernel": 0, ...}}
//
// The auto and manual converters write one (greedy_search_solutions.pipeconf,
// manual.pipeconfig); pipeline_cfg {"converter": "load"} reads one.
//
//   ASSIGN_OR_RETURN(PipelineSolution s, ReadSolutionFile(path, graph));
//   RETURN_IF_ERROR(ApplySolution(s, &graph_def));
//
// Rules of a solution (ValidateSolution; InvalidArgument naming the file
// and the node or key):
//  - the keys are pipeline_mapping (required) and device_mapping (optional:
//    missing, stage s runs on IPU s); any other key is an error naming it
//    (the original silently ignored a misspelt "device_maping");
//  - every name in pipeline_mapping is a node of the graph, every stage an
//    integer >= 0, and every node but the signature inputs and the
//    pass-through ops (Const, Identity, Pack) has a stage; a pass-through
//    node without one takes its consumer's (serving_graph.h);
//  - stages are numbered from 0 without gaps;
//  - a node reads only signature inputs and nodes of its own or earlier
//    stages ("not in topology order", naming the node and what it reads):
//    values flow forward through the pipeline;
//  - device_mapping has one IPU (an integer >= 0) per stage: "The length of
//    the device info given (N) must be equal to the number of pipeline
//    stages (M).".
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_SOLUTION_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_SOLUTION_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/saved_model/proto/saved_model.pb.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/serving_graph.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

struct PipelineSolution {
  // Every node -> its stage (a signature input: the first stage reading
  // it; it runs on the host, so the stage is informative only).
  std::map<std::string, int> pipeline_mapping;
  // The IPU of each stage.
  std::vector<int> device_mapping;

  int num_stages() const { return static_cast<int>(device_mapping.size()); }
};

// A solution from the stages of the compute nodes (every node of
// graph.compute_order() must have one): pass-through nodes get their
// consumer's stage, signature inputs the first stage that reads them. Then
// ValidateSolution.
absl::StatusOr<PipelineSolution> MakeSolution(const ServingGraph& graph,
                                              const std::map<std::string, int>& compute_stages,
                                              std::vector<int> device_mapping);

// Checks the rules above; `source` names the solution in messages.
absl::Status ValidateSolution(const ServingGraph& graph, const PipelineSolution& solution,
                              const std::string& source);

nlohmann::json SolutionToJson(const PipelineSolution& solution);
absl::StatusOr<PipelineSolution> SolutionFromJson(const nlohmann::json& json,
                                                  const ServingGraph& graph,
                                                  const std::string& source);

absl::Status WriteSolutionFile(const std::string& path, const PipelineSolution& solution);
absl::StatusOr<PipelineSolution> ReadSolutionFile(const std::string& path,
                                                  const ServingGraph& graph);

// Marks every node of `graph` placed on an IPU with its stage
// (kPipelineStageAttr) and its stage's IPU (kShardAttr). Nodes on the
// host (the signature inputs) are left alone. FailedPrecondition when no
// node is on an IPU, InvalidArgument naming a node the solution lacks;
// the graph is unchanged on error.
absl::Status ApplySolution(const PipelineSolution& solution, GraphDef* graph);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_SOLUTION_H_
