// The pipelining converter a pipeline_cfg selects (pipeline_config.h):
// AutoPipeline, ManualPipeline or PipelineConfLoader, ready to Apply to the
// frozen serving graph after the other converters of `convert ... ipu`.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Converter> c,
//                    MakePipelineConverter(pipeline_cfg, {num_ipus, batch_size,
//                                                         batch_per_step, "."}));
//   RETURN_IF_ERROR(c->Apply(&graph_def, &signature));
//
// InvalidArgument for a pipeline_cfg that does not validate, or a context
// with num_ipus or batch_size below 1 or a negative batch_per_step.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONVERTER_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONVERTER_H_

#include <memory>
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/converter.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_context.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::StatusOr<std::unique_ptr<Converter>> MakePipelineConverter(const nlohmann::json& pipeline_cfg,
                                                                 const PipelineContext& context);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONVERTER_H_
