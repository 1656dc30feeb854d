// The `convert` subcommand of ipu_saved_model_cli: its command line, as the
// original declares it (`convert --dir D --output_dir O --tag_set T ipu
// [flags]`, the flags of convert/convert_options.h), turned into
// ConvertOptions and run by convert/convert.h.
//
//   RunCli({"convert", "--dir", "m", "--output_dir", "o", "--tag_set", "serve",
//           "ipu", "--num_ipus", "2", "--manual_sharding", "[['^a'], ['^b']]"}, ...);
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_COMMAND_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_COMMAND_H_

#include <ostream>

#include "absl/status/status.h"
#include "tools/ipu_saved_model_cli/cli_args.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

extern const char kConvertDescription[];

// Declares --dir, --output_dir, --tag_set and the `ipu` subcommand with
// every flag of ConvertFlags().
void DeclareConvert(ArgParser* parser);

// Sets the ConvertOptions from the flags given (the others keep their
// defaults), applies --config_file over them, and converts. Errors are the
// flag's (InvalidArgument naming it), the config file's and Convert's.
absl::Status RunConvertCommand(const ParsedArgs& args, std::ostream& out, std::ostream& err);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_COMMAND_H_
