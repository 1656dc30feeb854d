#include "tools/ipu_saved_model_cli/run.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/saved_model/loader.h"
#include "tools/ipu_saved_model_cli/input_exprs.h"
#include "tools/ipu_saved_model_cli/npy.h"
#include "tools/ipu_saved_model_cli/numpy_cast.h"
#include "tools/ipu_saved_model_cli/show.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

namespace fs = std::filesystem;

struct FileInput {
  std::string file;
  std::optional<std::string> variable;
};

std::vector<std::string> Entries(const std::string& option) {
  return absl::StrSplit(option, ';', absl::SkipEmpty());
}

bool HasBracket(absl::string_view s) { return s.find_first_of("[]") != absl::string_view::npos; }

// --inputs "k=file" or "k=file[variable]", as the original's regular
// expressions ([^=]+)=([^\[\]]+)\[([^\[\]]+)\]$ and ([^=]+)=([^\[\]]+)$.
absl::StatusOr<std::vector<std::pair<std::string, FileInput>>> ParseInputsOption(
    const std::string& option) {
  std::vector<std::pair<std::string, FileInput>> inputs;
  for (const std::string& entry : Entries(option)) {
    const size_t eq = entry.find('=');
    const absl::Status bad = absl::InvalidArgumentError(absl::StrCat(
        "--inputs \"", entry, "\" format is incorrect. Please follow \"<input_key>=<filename>\", "
        "or \"<input_key>=<filename>[<variable_name>]\""));
    if (eq == std::string::npos || eq == 0) return bad;
    const std::string key = entry.substr(0, eq);
    const std::string rest = entry.substr(eq + 1);
    FileInput input;
    const size_t open = rest.find('[');
    if (open != std::string::npos && rest.back() == ']') {
      input.file = rest.substr(0, open);
      input.variable = rest.substr(open + 1, rest.size() - open - 2);
      if (input.variable->empty() || HasBracket(*input.variable)) return bad;
    } else {
      input.file = rest;
    }
    if (input.file.empty() || HasBracket(input.file)) return bad;
    inputs.emplace_back(key, std::move(input));
  }
  return inputs;
}

// The IPU flags, checked as the vendor's documentation describes them.
absl::Status CheckIpuFlags(const RunCommandOptions& o) {
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--matmul_amp", &o.matmul_amp},
                                    {"--conv_amp", &o.conv_amp}}) {
    double amp;
    if (!absl::SimpleAtod(*value, &amp) || !(amp > 0.0 && amp <= 1.0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, " is the proportion of memory for temporary values: a number above 0.0 and "
          "at most 1.0, got '", *value, "'"));
    }
  }
  for (const auto& [flag, value] :
       {std::pair<const char*, const std::string*>{"--matmul_partial_type", &o.matmul_partial_type},
        {"--conv_partial_type", &o.conv_partial_type}}) {
    if (*value != "float" && *value != "half") {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " must be \"float\" or \"half\", got '", *value, "'"));
    }
    if (*value == "half") {
      return absl::UnimplementedError(absl::StrCat(
          flag, " half is not simulated: the simulator's matrix multiplications accumulate "
          "their partial sums in float only; leave it float"));
    }
  }
  if (o.num_ipus < 1 || o.num_ipus > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--num_ipus must be a number of IPUs of at least 1 (1, 2, 4, ...), got ", o.num_ipus));
  }
  return absl::OkStatus();
}

std::string OutputPath(const std::string& outdir, const std::string& key) {
  return (fs::path(outdir) / (key + ".npy")).string();
}

}  // namespace

absl::StatusOr<std::map<std::string, Tensor>> LoadInputs(const RunCommandOptions& options,
                                                         std::ostream& err) {
  if (options.inputs.empty() && options.input_exprs.empty() && options.input_examples.empty()) {
    return absl::InvalidArgumentError(
        "At least one of --inputs, --input_exprs or --input_examples must be required");
  }
  if (!options.input_examples.empty()) {
    return absl::UnimplementedError(
        "--input_examples is not supported: the ParseExample op that reads tf.Example protos "
        "has no kernel in this build; feed the parsed features with --inputs or --input_exprs");
  }
  std::map<std::string, Tensor> feeds;
  ASSIGN_OR_RETURN(auto file_inputs, ParseInputsOption(options.inputs));
  for (const auto& [key, input] : file_inputs) {
    if (input.variable.has_value()) {
      // A .npy file holds one array; the original warns and uses it.
      err << "warning: Input file " << input.file << " contains a single ndarray. Name key \""
          << *input.variable << "\" ignored.\n";
    }
    absl::StatusOr<Tensor> t = ReadNpyFile(input.file);
    if (!t.ok()) {
      return absl::Status(t.status().code(),
                          absl::StrCat("--inputs ", key, ": ", t.status().message()));
    }
    feeds[key] = *std::move(t);
  }
  for (const std::string& entry : Entries(options.input_exprs)) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input_exprs \"", entry,
          "\" format is incorrect. Please follow \"<input_key>=<python expression>\""));
    }
    const std::string key = entry.substr(0, eq);
    absl::StatusOr<Tensor> t = ParseInputExpr(absl::string_view(entry).substr(eq + 1));
    if (!t.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input_exprs \"", entry, "\": ", t.status().message(), " (positions count from the "
          "start of the expression, after '", key, "=')"));
    }
    if (feeds.count(key)) {
      err << "warning: input_key " << key
          << " has been specified with both --inputs and --input_exprs options. Value in "
             "--input_exprs will be used.\n";
    }
    feeds[key] = *std::move(t);
  }
  return feeds;
}

absl::Status Run(const RunCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (options.tf_debug) {
    return absl::UnimplementedError(
        "--tf_debug is not supported: TensorFlow's debugger (tfdbg) does not exist here; run "
        "without it");
  }
  if (options.worker.has_value()) {
    return absl::UnimplementedError(absl::StrCat(
        "--worker is not supported: the model runs in this process, not on the TensorFlow "
        "server ", *options.worker, "; run without --worker"));
  }
  if (options.init_tpu) {
    return absl::UnimplementedError(
        "--init_tpu is not supported: there are no TPUs here; use --init_ipu to configure the "
        "simulated IPUs");
  }
  ASSIGN_OR_RETURN(auto feeds, LoadInputs(options, err));
  ASSIGN_OR_RETURN(MetaGraphDef meta, ReadMetaGraphDef(options.dir, options.tag_set));
  ASSIGN_OR_RETURN(SignatureDef signature, FindSignatureDef(meta, options.signature_def));

  std::map<std::string, Tensor> inputs;
  for (auto& [key, value] : feeds) {
    auto it = signature.inputs().find(key);
    if (it == signature.inputs().end()) {
      std::vector<std::string> keys;
      for (const auto& [k, unused] : signature.inputs()) keys.push_back(k);
      std::sort(keys.begin(), keys.end());
      return absl::InvalidArgumentError(absl::StrCat(
          "\"", key, "\" is not a valid input key. Please choose from \"",
          absl::StrJoin(keys, "\", \""), "\", or use --show option."));
    }
    ASSIGN_OR_RETURN(inputs[key],
                     CastLikeNumpy(value, it->second.dtype(), absl::StrCat("input '", key, "'")));
  }
  // Every output file is checked before anything runs or is written.
  if (options.outdir.has_value()) {
    for (const auto& [key, info] : signature.outputs()) {
      // The key comes from the model's file: it must not lead the write
      // out of --outdir.
      if (key.empty() || key == "." || key == ".." || key.find('/') != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            "output key '", key, "' cannot name a file in --outdir (it is empty, '.', '..' or "
            "has a '/'); run without --outdir to print it"));
      }
      if (!NpyCanWrite(info.dtype())) {
        return absl::UnimplementedError(absl::StrCat(
            "output '", key, "' is ", DataTypeString(info.dtype()),
            ", which cannot be saved as .npy; run without --outdir to print it"));
      }
      const std::string path = OutputPath(*options.outdir, key);
      std::error_code ec;
      if (!options.overwrite && fs::exists(path, ec)) {
        return absl::AlreadyExistsError(absl::StrCat(
            "Output file ", path,
            " already exists. Add \"--overwrite\" to overwrite the existing output files."));
      }
    }
  }
  if (options.init_ipu) {
    RETURN_IF_ERROR(CheckIpuFlags(options));
    out << "Initializing IPU System ..." << std::endl;
    ipu::config::IPUConfig cfg;
    cfg.auto_select_ipus = static_cast<int>(options.num_ipus);
    // Each to its own kind of operation (the original gave the matmul
    // options to convolutions too).
    cfg.matmuls.poplar_options = {{"availableMemoryProportion", options.matmul_amp},
                                  {"partialsType", options.matmul_partial_type}};
    cfg.convolutions.poplar_options = {{"availableMemoryProportion", options.conv_amp},
                                       {"partialsType", options.conv_partial_type}};
    RETURN_IF_ERROR(cfg.configure_ipu_system());
  }
  SavedModelBundle bundle;
  RETURN_IF_ERROR(LoadSavedModel(SessionOptions(), tensorflow_ipu::RunOptions(), options.dir,
                                 ParseTagSet(options.tag_set), &bundle));
  std::map<std::string, Tensor> outputs;
  RETURN_IF_ERROR(RunSignature(bundle, options.signature_def, inputs, &outputs));
  for (const auto& [key, tensor] : outputs) {
    out << "Result for output key " << key << ":\n" << tensor.DebugString() << "\n";
    if (!options.outdir.has_value()) continue;
    std::error_code ec;
    fs::create_directories(*options.outdir, ec);
    if (ec) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot create the output directory ", *options.outdir, ": ", ec.message()));
    }
    const std::string path = OutputPath(*options.outdir, key);
    absl::Status s = WriteNpyFile(path, tensor);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("output key ", key, ": ", s.message()));
    }
    out << "Output " << key << " is saved to " << path << "\n";
  }
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
