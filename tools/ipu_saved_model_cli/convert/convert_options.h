// The options of `ipu_saved_model_cli convert --dir D --output_dir O
// --tag_set T ipu [flags]`: every flag of the vendor's tool with its default,
// the JSON --config_file that overrides them, and the checks made before
// any model is loaded.
//
//   ConvertOptions options;                       // the defaults
//   RETURN_IF_ERROR(SetConvertFlag("num_ipus", {"2"}, &options));
//   RETURN_IF_ERROR(SetConvertFlag("manual_sharding", {"[['^a'], ['^b']]"}, &options));
//   if (!options.config_file.empty()) {
//     RETURN_IF_ERROR(ApplyConfigFile(options.config_file, &options));
//   }
//   RETURN_IF_ERROR(ValidateConvertOptions(options));
//
// Differences from the original (its defects, fixed): a config value of the
// wrong type is an error naming the key, the expected and the given type
// (the original ignores it silently), and so is an unknown key (listing the
// valid ones); --merge_subgraphs works on the command line (the original
// drops it).
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERT_OPTIONS_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERT_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace tensorflow_ipu {
namespace saved_model_cli {

// The GELU replacement (config file key "gelu_replacement"): the nodes of a
// GELU written out of primitive ops are deleted and replaced by IpuGelu.
struct GeluReplacementOptions {
  std::vector<std::string> nodes;                 // the deleted nodes (regexes)
  std::vector<std::string> node_as_gelu_input;    // the GELU's input nodes
  std::vector<std::string> node_use_gelu_output;  // its consumers
};

struct ConvertOptions {
  // Where the SavedModel is, where the converted one goes, and the tag set
  // of its MetaGraphDef ("serve" or "serve,gpu": comma-separated).
  std::string dir;
  std::string output_dir;
  std::string tag_set = "serve";

  std::vector<std::string> excluded_nodes;  // kept off the IPU (regexes)
  int64_t num_ipus = 1;
  double matmul_amp = 0.6;   // availableMemoryProportion of matmuls
  double conv_amp = 0.6;     // ... of convolutions
  std::string matmul_partial_type = "float";  // "float" or "half"
  std::string conv_partial_type = "float";
  int64_t batch_size = 1;      // fixes an input's unknown first dimension
  int64_t batch_per_step = 0;  // the loop-repeat wrapper's iterations
  std::string precision_mode;  // "FP16", "FP32", "FP64" or empty (None)
  bool no_ipu_placement = false;
  bool int64_to_int32_conversion = false;
  bool remove_excluded_nodes = false;
  bool merge_subgraphs = false;
  std::vector<std::string> precision_conversion_excluded_nodes;  // regexes
  // One list of regexes per IPU; the command line gives it as a Python
  // literal ('[["^add$"], ["^mul$"]]'), the config file as JSON.
  std::vector<std::vector<std::string>> manual_sharding;
  std::optional<GeluReplacementOptions> gelu_replacement;
  // JSON objects, or null (None) when not given.
  nlohmann::json embedded_runtime_save_config;
  nlohmann::json pipeline_cfg;
  std::string config_file;
};

// How a flag takes its values on the command line.
enum class FlagArity {
  kSwitch,  // --no_ipu_placement
  kValue,   // --num_ipus 2
  kList,    // --excluded_nodes a b c (nargs='+')
};

struct ConvertFlag {
  std::string name;  // without the leading "--"
  FlagArity arity;
  std::string default_text;  // as the help shows it
  std::string help;
};

// Every flag of `convert ... ipu`, in the order the help lists them.
const std::vector<ConvertFlag>& ConvertFlags();

// Sets flag `name` (no "--") from its command-line values: none for a
// switch, one for a value, one or more for a list. InvalidArgument naming
// the flag for an unknown flag, a wrong number of values, or a value that
// does not parse (an integer, a number, a JSON object, the manual_sharding
// literal). Leaves `options` unchanged on error.
absl::Status SetConvertFlag(absl::string_view name, const std::vector<std::string>& values,
                            ConvertOptions* options);

// The keys a config file may hold (every option but dir, output_dir,
// tag_set and config_file), sorted.
const std::vector<std::string>& ConfigFileKeys();

// Reads the JSON object in `path` and sets the options it names (its values
// override the flags'). "md5sum" is accepted and ignored, so that a
// conversion_params.json written by convert can be given back as a config
// file. Errors (InvalidArgument unless said otherwise; `options` unchanged):
//  - `config_file F is not readable.` (NotFound or PermissionDenied);
//  - not JSON, or not an object: says where it fails to parse;
//  - an unknown key, naming it and listing ConfigFileKeys();
//  - a value of the wrong type: `config_file F: "num_ipus" should be an
//    integer, not a string.`;
//  - a gelu_replacement without its keys: `Missing items from gelu: [...]`.
absl::Status ApplyConfigFile(const std::string& path, ConvertOptions* options);

// The original's checks, with its wording where it has one:
//  `num_ipus should be an integer, and greater than 0.`, batch_size > 0,
//  batch_per_step >= 0, precision_mode one of FP16, FP32, FP64, the amps in
//  (0, 1], the partial types "float" or "half", every regex of
//  excluded_nodes, precision_conversion_excluded_nodes, manual_sharding and
//  gelu_replacement compiled (an invalid one is named), the embedded
//  runtime's config and pipeline_cfg JSON objects when given.
absl::Status ValidateConvertOptions(const ConvertOptions& options);

// The options as conversion_params.json holds them: every config-file key
// with its value (null for an unset optional).
nlohmann::json ConvertOptionsToJson(const ConvertOptions& options);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERT_OPTIONS_H_
