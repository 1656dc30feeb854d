#include "tools/ipu_saved_model_cli/cli.h"

#include "tools/ipu_saved_model_cli/convert_command.h"
#include "tools/ipu_saved_model_cli/run.h"
#include "tools/ipu_saved_model_cli/scan.h"
#include "tools/ipu_saved_model_cli/show.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

constexpr char kProg[] = "ipu_saved_model_cli";

constexpr char kShowDescription[] =
    "Usage examples:\n"
    "To show all tag-sets in a SavedModel:\n"
    "$ ipu_saved_model_cli show --dir /tmp/saved_model\n"
    "\n"
    "To show all available SignatureDef keys in a MetaGraphDef specified by its tag-set:\n"
    "$ ipu_saved_model_cli show --dir /tmp/saved_model --tag_set serve\n"
    "\n"
    "For a MetaGraphDef with multiple tags in the tag-set, all tags must be passed in,\n"
    "separated by ';':\n"
    "$ ipu_saved_model_cli show --dir /tmp/saved_model --tag_set serve,gpu\n"
    "\n"
    "To show all inputs and outputs TensorInfo for a specific SignatureDef specified by\n"
    "the SignatureDef key in a MetaGraph.\n"
    "$ ipu_saved_model_cli show --dir /tmp/saved_model --tag_set serve "
    "--signature_def serving_default\n"
    "\n"
    "To show all available information in the SavedModel:\n"
    "$ ipu_saved_model_cli show --dir /tmp/saved_model --all";

constexpr char kRunDescription[] =
    "Usage example:\n"
    "To run input tensors from files through a MetaGraphDef and save the output tensors to "
    "files:\n"
    "$ ipu_saved_model_cli run --dir /tmp/saved_model --tag_set serve \\\n"
    "   --signature_def serving_default \\\n"
    "   --inputs 'input1_key=/tmp/124.npy;input2_key=/tmp/123.npy' \\\n"
    "   --input_exprs 'input3_key=np.ones(2)' \\\n"
    "   --outdir=/out\n"
    "\n"
    "For more information about input file format, please see:\n"
    "docs/saved_model_cli.md";

void DeclareShow(ArgParser* p) {
  p->AddOption({"dir", OptionKind::kString, std::nullopt, true,
                "directory containing the SavedModel to inspect"});
  p->AddOption({"all", OptionKind::kBool, std::nullopt, false,
                "if set, will output all information in given SavedModel"});
  p->AddOption({"tag_set", OptionKind::kString, std::nullopt, false,
                "tag-set of graph in SavedModel to show, separated by ','"});
  p->AddOption({"signature_def", OptionKind::kString, std::nullopt, false,
                "key of SignatureDef to display input(s) and output(s) for",
                "SIGNATURE_DEF_KEY"});
}

absl::Status RunShow(const ParsedArgs& a, std::ostream& out, std::ostream&) {
  ShowOptions o;
  o.dir = *a.GetString("dir");
  o.all = a.GetBool("all");
  o.tag_set = a.GetString("tag_set");
  o.signature_def = a.GetString("signature_def");
  return Show(o, out);
}

void DeclareRun(ArgParser* p) {
  p->AddOption({"dir", OptionKind::kString, std::nullopt, true,
                "directory containing the SavedModel to execute"});
  p->AddOption({"tag_set", OptionKind::kString, std::nullopt, true,
                "tag-set of graph in SavedModel to load, separated by ','"});
  p->AddOption({"signature_def", OptionKind::kString, std::nullopt, true,
                "key of SignatureDef to run", "SIGNATURE_DEF_KEY"});
  p->AddOption({"inputs", OptionKind::kString, "", false,
                "Loading inputs from files, in the format of '<input_key>=<filename>'\n"
                "or '<input_key>=<filename>[<variable_name>]', separated by ';'.\n"
                "The files are .npy (.npz archives are not supported)."});
  p->AddOption({"input_exprs", OptionKind::kString, "", false,
                "Specifying inputs by expressions, in the format of\n"
                "\"<input_key>='<expression>'\", separated by ';'. An expression is\n"
                "a number, a nested list or tuple of numbers, np.ones(shape),\n"
                "np.zeros(shape) or np.array(value), with an optional dtype;\n"
                "it is parsed, never evaluated."});
  p->AddOption({"input_examples", OptionKind::kString, "", false,
                "Specifying tf.Example inputs as list of dictionaries: not supported\n"
                "(the ParseExample op has no kernel in this build)."});
  p->AddOption({"outdir", OptionKind::kString, std::nullopt, false,
                "if specified, output tensor(s) will be saved to given directory"});
  p->AddOption({"overwrite", OptionKind::kBool, std::nullopt, false,
                "if set, output file will be overwritten if it already exists."});
  p->AddOption({"tf_debug", OptionKind::kBool, std::nullopt, false,
                "TensorFlow's debugger: not supported here."});
  p->AddOption({"worker", OptionKind::kString, std::nullopt, false,
                "a TensorFlow server to run on: not supported here\n"
                "(the model runs in this process)."});
  p->AddOption({"init_tpu", OptionKind::kBool, std::nullopt, false,
                "TensorFlow's TPU initialisation: not supported here (use --init_ipu)."});
  p->AddOption({"init_ipu", OptionKind::kBool, std::nullopt, false,
                "if set, configures the IPU system before the SavedModel is loaded,\n"
                "so that its IPU nodes run on the simulated IPUs."});
  p->AddOption({"num_ipus", OptionKind::kInt, "1", false,
                "the number of IPUs the SavedModel uses (with --init_ipu)."});
  p->AddOption({"matmul_amp", OptionKind::kString, "0.6", false,
                "the proportion of memory for temporary values of matrix\n"
                "multiplications, between 0.0 and 1.0 (with --init_ipu)."});
  p->AddOption({"conv_amp", OptionKind::kString, "0.6", false,
                "the proportion of memory for temporary values of convolutions,\n"
                "between 0.0 and 1.0 (with --init_ipu)."});
  p->AddOption({"matmul_partial_type", OptionKind::kString, "float", false,
                "the type of intermediate values of matrix multiplications:\n"
                "\"float\" or \"half\" (with --init_ipu)."});
  p->AddOption({"conv_partial_type", OptionKind::kString, "float", false,
                "the type of intermediate values of convolutions:\n"
                "\"float\" or \"half\" (with --init_ipu)."});
}

absl::Status RunRun(const ParsedArgs& a, std::ostream& out, std::ostream& err) {
  RunCommandOptions o;
  o.dir = *a.GetString("dir");
  o.tag_set = *a.GetString("tag_set");
  o.signature_def = *a.GetString("signature_def");
  o.inputs = *a.GetString("inputs");
  o.input_exprs = *a.GetString("input_exprs");
  o.input_examples = *a.GetString("input_examples");
  o.outdir = a.GetString("outdir");
  o.overwrite = a.GetBool("overwrite");
  o.tf_debug = a.GetBool("tf_debug");
  o.init_tpu = a.GetBool("init_tpu");
  o.worker = a.GetString("worker");
  o.init_ipu = a.GetBool("init_ipu");
  o.num_ipus = *a.GetInt("num_ipus");
  o.matmul_amp = *a.GetString("matmul_amp");
  o.conv_amp = *a.GetString("conv_amp");
  o.matmul_partial_type = *a.GetString("matmul_partial_type");
  o.conv_partial_type = *a.GetString("conv_partial_type");
  return Run(o, out, err);
}

constexpr char kScanDescription[] =
    "Usage example:\n"
    "To scan for blacklisted ops (WriteFile, ReadFile, PrintV2) in SavedModel:\n"
    "$ ipu_saved_model_cli scan --dir /tmp/saved_model\n"
    "To scan a specific MetaGraph, pass in --tag_set";

void DeclareScan(ArgParser* p) {
  p->AddOption({"dir", OptionKind::kString, std::nullopt, true,
                "directory containing the SavedModel to scan"});
  p->AddOption({"tag_set", OptionKind::kString, std::nullopt, false,
                "tag-set of graph in SavedModel to scan, separated by ','"});
}

absl::Status RunScan(const ParsedArgs& a, std::ostream& out, std::ostream&) {
  return Scan({*a.GetString("dir"), a.GetString("tag_set")}, out);
}

}  // namespace

std::vector<Command> Commands() {
  return {
      {"show", "Show information about a SavedModel.", kShowDescription, DeclareShow, RunShow},
      {"run", "Run a SavedModel with given inputs.", kRunDescription, DeclareRun, RunRun},
      {"scan", "Scan a SavedModel for blacklisted ops.", kScanDescription,
       DeclareScan, RunScan},
      {"convert", "Convert the SavedModel with a specified converter.", kConvertDescription,
       DeclareConvert, RunConvertCommand},
  };
}

std::unique_ptr<ArgParser> MakeParser(const std::vector<Command>& commands) {
  // As TensorFlow's saved_model_cli: a version flag, the commands in a
  // group of their own, and each command's help printed as written.
  auto parser =
      std::make_unique<ArgParser>(kProg, "ipu_saved_model_cli: Command-line interface for SavedModel");
  parser->set_version("0.1.0");
  parser->SetSubcommandGroup("commands", "valid commands", "additional help");
  for (const Command& c : commands) {
    ArgParser* sub = parser->AddSubcommand(c.name, c.help, c.description);
    sub->set_raw_help(true);
    c.declare(sub);
  }
  return parser;
}

int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::vector<Command> commands = Commands();
  const std::unique_ptr<ArgParser> parser = MakeParser(commands);
  absl::StatusOr<ParsedArgs> parsed = parser->Parse(args);
  if (!parsed.ok()) {
    err << parser->ErrorText(parsed.status());
    return 2;
  }
  if (!parsed->help().empty()) {
    out << parsed->help();
    return 0;
  }
  for (const Command& c : commands) {
    if (c.name != parsed->subcommands().front()) continue;
    absl::Status s = c.run(*parsed, out, err);
    if (!s.ok()) {
      out.flush();
      err << s.message() << "\n";
      return 1;
    }
    return 0;
  }
  return 2;  // Unreachable: the parser accepts only the commands above.
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
