// `ipu_saved_model_cli convert --dir D --output_dir O --tag_set T ipu`:
// converts a SavedModel for the IPU.
//
//   ConvertOptions options;
//   options.dir = "model/1";
//   options.output_dir = "model_ipu/1";
//   ASSIGN_OR_RETURN(ConvertResult r, Convert(options, std::cout));
//
// 1. Checks the options (ValidateConvertOptions) and builds the converters
//    (BuildConverters), before anything is read.
// 2. Loads D's MetaGraphDef of tag set T (comma-separated) and freezes its
//    signature serving_default (saved_model/freeze.h): variables become
//    constants, the graph is cut to what the signature needs, and inputs'
//    unknown first dimension becomes --batch_size (the simulated IPU needs
//    static shapes).
// 3. Applies the converters in order (converter_pipeline.h).
// 4. Writes O/saved_model.pb: one MetaGraphDef with the same tags, the
//    converted graph and only serving_default (no variables: the graph has
//    none left), and O/conversion_params.json: every option
//    (ConvertOptionsToJson) and the md5sum of saved_model.pb. Both are
//    written under temporary names and renamed into place.
// 5. Prints to `out` where it wrote them.
//
// Errors: the options' (InvalidArgument), an empty --dir or --output_dir,
// an output directory that exists and is not empty (AlreadyExists, as
// TensorFlow's builder), the loader's, the converters', and a converted
// graph that does not import (naming the node) — nothing is written then.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERT_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERT_H_

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

inline constexpr char kConversionParamsFilename[] = "conversion_params.json";

struct ConvertResult {
  std::string saved_model_path;  // O/saved_model.pb
  std::string params_path;       // O/conversion_params.json
  std::string md5sum;            // of saved_model.pb
};

absl::StatusOr<ConvertResult> Convert(const ConvertOptions& options, std::ostream& out);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERT_H_
