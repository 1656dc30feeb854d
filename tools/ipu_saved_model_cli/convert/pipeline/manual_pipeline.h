// pipeline_cfg {"converter": "manual"}: pipeline stages given by regular
// expressions over node names, one list per stage.
//
//   {"converter": "manual",
//    "manual_pipeline_config": [["^dense_[0-3]/"], ["^dense_[4-7]/", "^y$"]],
//    "device_info": [0, 1]}
//
// Every node but the signature inputs and the pass-through ops (Const,
// Identity, Pack, which follow their consumer) must match a regex of some
// stage. A regex matches at the start of the name and may end anywhere,
// like Python's re.match (so "dense_1" also matches "dense_10/MatMul"; end
// it with "/" or "$" to be exact); the syntax is RE2's (Python's without
// backreferences or lookaround; convert/node_patterns.h). When several stages match, the
// last one wins; a stage left without nodes is an error naming it. A node
// no regex matches is an error naming it: "The node
// `n` is not fully set with `pipeline_stage`" (the original's docs said
// such nodes went to IPU 0; its code raised this error).
//
// Apply writes the solution to <solution_dir>/manual.pipeconfig, profiles
// it on the simulator when profiling_enable is set (reports under
// <profiling_root_dir>/manual_pipeline-<ipus>-b<batch_size>), and gives
// every IPU node its stage and its stage's IPU (pipeline_solution.h).
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_MANUAL_PIPELINE_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_MANUAL_PIPELINE_H_

#include <map>
#include <string>

#include "tools/ipu_saved_model_cli/convert/converter.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_config.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_context.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

class ManualPipeline : public Converter {
 public:
  ManualPipeline(ManualPipelineConfig config, PipelineContext context)
      : config_(std::move(config)), context_(std::move(context)) {}
  absl::string_view name() const override { return "ManualPipeline"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

  // The file Apply wrote.
  const std::string& solution_path() const { return solution_path_; }

 private:
  ManualPipelineConfig config_;
  PipelineContext context_;
  std::string solution_path_;
};

// The stage of every compute node of `graph` by the regex rules above.
absl::StatusOr<std::map<std::string, int>> MatchStages(
    const ServingGraph& graph, const std::vector<std::vector<std::string>>& regexes_per_stage);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_MANUAL_PIPELINE_H_
