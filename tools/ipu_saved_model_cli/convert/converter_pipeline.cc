#include "tools/ipu_saved_model_cli/convert/converter_pipeline.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/gelu_replacement.h"
#include "tools/ipu_saved_model_cli/convert/int64_conversion.h"
#include "tools/ipu_saved_model_cli/convert/ipu_placement.h"
#include "tools/ipu_saved_model_cli/convert/loop_repeat_wrapper.h"
#include "tools/ipu_saved_model_cli/convert/manual_sharding.h"
#include "tools/ipu_saved_model_cli/convert/merge_subgraphs.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_converter.h"
#include "tools/ipu_saved_model_cli/convert/precision_conversion.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

template <typename C>
absl::Status Add(const ConvertOptions& options, ConverterList* list) {
  ASSIGN_OR_RETURN(std::unique_ptr<C> c, C::Create(options));
  list->push_back(std::move(c));
  return absl::OkStatus();
}

}  // namespace

absl::Status AddRuntimeConverters(const ConvertOptions& options, ConverterList* converters) {
  if (!options.pipeline_cfg.is_null()) {
    // The solution and profiling directories are relative to the current
    // directory, as the original's.
    if (options.num_ipus > std::numeric_limits<int>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "num_ipus ", options.num_ipus, " is too large to pipeline over; give the IPUs the "
          "pipeline may use (at most ", std::numeric_limits<int>::max(), ")"));
    }
    PipelineContext context;
    context.num_ipus = static_cast<int>(options.num_ipus);
    context.batch_size = options.batch_size;
    context.batch_per_step = options.batch_per_step;
    ASSIGN_OR_RETURN(std::unique_ptr<Converter> pipeline,
                     MakePipelineConverter(options.pipeline_cfg, context));
    converters->push_back(std::move(pipeline));
  }
  // After the pipelining converter, so that it wraps the stages too.
  return Add<LoopRepeatWrapper>(options, converters);
}

absl::StatusOr<ConverterList> BuildConverters(const ConvertOptions& options) {
  ConverterList list;
  RETURN_IF_ERROR(Add<GeluReplacement>(options, &list));
  RETURN_IF_ERROR(Add<IpuPlacement>(options, &list));
  RETURN_IF_ERROR(Add<Int64Conversion>(options, &list));
  RETURN_IF_ERROR(Add<PrecisionConversion>(options, &list));
  RETURN_IF_ERROR(Add<ManualSharding>(options, &list));
  RETURN_IF_ERROR(Add<MergeSubgraphs>(options, &list));
  RETURN_IF_ERROR(AddRuntimeConverters(options, &list));
  return list;
}

absl::Status ApplyConverters(const ConverterList& converters, GraphDef* graph,
                             SignatureDef* signature) {
  GraphDef g = *graph;
  SignatureDef s = *signature;
  for (const std::unique_ptr<Converter>& c : converters) RETURN_IF_ERROR(c->Apply(&g, &s));
  *graph = std::move(g);
  *signature = std::move(s);
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
