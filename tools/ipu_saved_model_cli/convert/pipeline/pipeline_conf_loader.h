// pipeline_cfg {"converter": "load"}: pipeline stages from a solution file
// (pipeline_solution.h), such as one the auto or manual converter wrote.
//
//   {"converter": "load", "solution_path": "solution/manual.pipeconfig"}
//
// Apply reads and validates the file against the graph, checks that its
// IPUs fit num_ipus, profiles it on the simulator when profiling_enable is
// set (reports under <profiling_root_dir>/pipeline_loader-<ipus>-b<batch>),
// and gives every IPU node its stage and its stage's IPU.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONF_LOADER_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONF_LOADER_H_

#include "tools/ipu_saved_model_cli/convert/converter.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_config.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_context.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

class PipelineConfLoader : public Converter {
 public:
  PipelineConfLoader(LoadPipelineConfig config, PipelineContext context)
      : config_(std::move(config)), context_(std::move(context)) {}
  absl::string_view name() const override { return "PipelineConfLoader"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

 private:
  LoadPipelineConfig config_;
  PipelineContext context_;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONF_LOADER_H_
