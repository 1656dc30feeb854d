#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_converter.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/auto_pipeline.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/manual_pipeline.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_conf_loader.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_config.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::StatusOr<std::unique_ptr<Converter>> MakePipelineConverter(const nlohmann::json& pipeline_cfg,
                                                                 const PipelineContext& context) {
  if (context.num_ipus < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_ipus should be an integer, and greater than 0 (it is ", context.num_ipus, ")."));
  }
  if (context.batch_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_size must be at least 1 to profile a pipeline (it is ", context.batch_size, ")"));
  }
  if (context.batch_per_step < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_per_step must not be negative (it is ", context.batch_per_step, ")"));
  }
  ASSIGN_OR_RETURN(PipelineConfig config, ParsePipelineConfig(pipeline_cfg));
  switch (config.converter) {
    case PipelineConverterKind::kAuto:
      return std::unique_ptr<Converter>(new AutoPipeline(config.auto_config, context));
    case PipelineConverterKind::kManual:
      return std::unique_ptr<Converter>(new ManualPipeline(config.manual, context));
    case PipelineConverterKind::kLoad:
      return std::unique_ptr<Converter>(new PipelineConfLoader(config.load, context));
  }
  return absl::InternalError("unknown pipeline converter");
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
