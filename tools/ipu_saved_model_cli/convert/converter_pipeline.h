// The converters of `convert ... ipu` in the vendor's order
// (converter_pipeline.py), built from the options and applied one after
// the other:
//
//   ASSIGN_OR_RETURN(ConverterList converters, BuildConverters(options));
//   RETURN_IF_ERROR(ApplyConverters(converters, &graph, &signature));
//
// The order: 1 GeluReplacement, 2 IPUPlacement, 3 Int64Conversion,
// 4 PrecisionConversion, 5 ManualSharding, 6 IPUCompilerWrapper
// (merge_subgraphs), then the converters that compile the IPU part for a
// runtime (AddRuntimeConverters): the pipelining converter pipeline_cfg
// selects (AutoPipeline, ManualPipeline or PipelineConfLoader), then
// LoopRepeatWrapper (the original runs the wrapper before them and skips it
// with pipeline_cfg; here it wraps their result). Each converter that has
// nothing to do for the options leaves the graph as it is.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERTER_PIPELINE_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERTER_PIPELINE_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"
#include "tools/ipu_saved_model_cli/convert/converter.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

using ConverterList = std::vector<std::unique_ptr<Converter>>;

// All the converters, created (each checks its options: the manual
// sharding's length, the regexes, ...) in order.
absl::StatusOr<ConverterList> BuildConverters(const ConvertOptions& options);

// The converters that compile the IPU part join the list here: the
// pipelining converter that pipeline_cfg selects
// (pipeline/pipeline_converter.h), then the loop-repeat wrapper
// (embedded_runtime_save_config, loop_repeat_wrapper.h).
absl::Status AddRuntimeConverters(const ConvertOptions& options, ConverterList* converters);

// Applies `converters` in order to copies of `graph` and `signature`, and
// replaces them only if all succeed: on error both are unchanged, and the
// error is the failing converter's.
absl::Status ApplyConverters(const ConverterList& converters, GraphDef* graph,
                             SignatureDef* signature);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERTER_PIPELINE_H_
