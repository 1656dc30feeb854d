#include "tools/ipu_saved_model_cli/convert_command.h"

#include <string>
#include <vector>

#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/convert.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

const char kConvertDescription[] =
    "Usage example:\n"
    "To convert the SavedModel to one that has IPU ops:\n"
    "$ ipu_saved_model_cli convert \\\n"
    "   --dir /tmp/saved_model \\\n"
    "   --tag_set serve \\\n"
    "   --output_dir /tmp/saved_model_ipu \\\n"
    "   ipu --num_ipus 2 --manual_sharding '[[\"^dense_1/\"], [\"^dense_2/\"]]'\n"
    "\n"
    "The flags, the config file and the converters: docs/saved_model_cli.md";

namespace {

constexpr char kIpuDescription[] =
    "Convert the serving_default signature of a SavedModel to run on the IPU:\n"
    "GELU replacement, IPU placement, int64 to int32, precision conversion,\n"
    "manual sharding, merged subgraphs and pipelining, in that order.";

OptionKind KindOf(FlagArity arity) {
  switch (arity) {
    case FlagArity::kSwitch: return OptionKind::kBool;
    case FlagArity::kList: return OptionKind::kNonEmptyStringList;
    case FlagArity::kValue: break;
  }
  // Values are parsed by SetConvertFlag, which names the flag on error.
  return OptionKind::kString;
}

}  // namespace

void DeclareConvert(ArgParser* parser) {
  parser->AddOption({"dir", OptionKind::kString, std::nullopt, true,
                     "directory containing the SavedModel to convert"});
  parser->AddOption({"output_dir", OptionKind::kString, std::nullopt, true,
                     "output directory for the converted SavedModel"});
  parser->AddOption({"tag_set", OptionKind::kString, std::nullopt, true,
                     "tag-set of graph in SavedModel to convert, separated by ','"});
  ArgParser* ipu = parser->AddSubcommand("ipu", "Convert a SavedModel to run on the IPU.",
                                         kIpuDescription);
  for (const ConvertFlag& flag : ConvertFlags()) {
    ipu->AddOption({flag.name, KindOf(flag.arity),
                    flag.arity == FlagArity::kSwitch ? std::nullopt
                                                     : std::optional<std::string>(),
                    false, flag.help + (flag.default_text.empty()
                                            ? std::string()
                                            : " (default: " + flag.default_text + ")")});
  }
}

absl::Status RunConvertCommand(const ParsedArgs& args, std::ostream& out, std::ostream&) {
  ConvertOptions options;
  options.dir = *args.GetString("dir");
  options.output_dir = *args.GetString("output_dir");
  options.tag_set = *args.GetString("tag_set");
  for (const ConvertFlag& flag : ConvertFlags()) {
    if (!args.IsSet(flag.name)) continue;  // the option's default stands
    std::vector<std::string> values;
    switch (flag.arity) {
      case FlagArity::kSwitch: break;
      case FlagArity::kValue: values = {*args.GetString(flag.name)}; break;
      case FlagArity::kList: values = args.GetStringList(flag.name); break;
    }
    RETURN_IF_ERROR(SetConvertFlag(flag.name, values, &options));
  }
  if (!options.config_file.empty()) {
    RETURN_IF_ERROR(ApplyConfigFile(options.config_file, &options));
  }
  return Convert(options, out).status();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
