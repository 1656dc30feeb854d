#include "tools/ipu_saved_model_cli/convert/convert_options.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/node_patterns.h"
#include "tools/ipu_saved_model_cli/convert/python_literal.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using Json = nlohmann::json;

// A SAX handler that accepts everything and keeps the parser's message of
// the first syntax error: nlohmann's DOM parser, run without exceptions,
// says only that the text is not JSON, not where.
class SyntaxChecker : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& e) override {
    // what() starts with "[json.exception.parse_error.101] ", an id that
    // means nothing to a user.
    absl::string_view what = e.what();
    const size_t close = what.find("] ");
    if (close != absl::string_view::npos) what.remove_prefix(close + 2);
    error = std::string(what);
    return false;
  }
  std::string error;
};

absl::StatusOr<Json> ParseJson(absl::string_view text, absl::string_view what) {
  SyntaxChecker checker;
  if (!Json::sax_parse(text.begin(), text.end(), &checker)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not valid JSON: ", checker.error));
  }
  Json value = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not valid JSON"));
  }
  return value;
}

// How a JSON value of the wrong type is named in errors.
std::string KindOf(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number with a fraction";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "a list";
    case Json::value_t::object: return "an object";
    default: return "binary data";
  }
}

// One config-file key: how it reads its value into the options, or why the
// value does not fit (WrongType: the key, the expected and the given type).
using Setter = std::function<absl::Status(const Json&, ConvertOptions*)>;

absl::Status WrongType(absl::string_view key, absl::string_view expected, const Json& given) {
  return absl::InvalidArgumentError(
      absl::StrCat("\"", key, "\" should be ", expected, ", not ", KindOf(given), "."));
}

Setter Int(int64_t ConvertOptions::*field, const char* key) {
  return [field, key](const Json& v, ConvertOptions* o) -> absl::Status {
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", key, "\" is ", v.get<uint64_t>(), ", which is too large."));
    }
    if (!v.is_number_integer()) return WrongType(key, "an integer", v);
    o->*field = v.get<int64_t>();
    return absl::OkStatus();
  };
}

// JSON does not tell 1 from 1.0: an integer is a number too.
Setter Number(double ConvertOptions::*field, const char* key) {
  return [field, key](const Json& v, ConvertOptions* o) -> absl::Status {
    if (!v.is_number()) return WrongType(key, "a number", v);
    o->*field = v.get<double>();
    return absl::OkStatus();
  };
}

Setter Bool(bool ConvertOptions::*field, const char* key) {
  return [field, key](const Json& v, ConvertOptions* o) -> absl::Status {
    if (!v.is_boolean()) return WrongType(key, "a boolean (true or false)", v);
    o->*field = v.get<bool>();
    return absl::OkStatus();
  };
}

// precision_mode may be null (None): no conversion.
Setter String(std::string ConvertOptions::*field, const char* key, bool nullable) {
  return [field, key, nullable](const Json& v, ConvertOptions* o) -> absl::Status {
    if (nullable && v.is_null()) {
      (o->*field).clear();
      return absl::OkStatus();
    }
    if (!v.is_string()) return WrongType(key, nullable ? "a string or null" : "a string", v);
    o->*field = v.get<std::string>();
    return absl::OkStatus();
  };
}

absl::StatusOr<std::vector<std::string>> StringList(const Json& v, absl::string_view key) {
  if (!v.is_array()) return WrongType(key, "a list of strings", v);
  std::vector<std::string> out;
  for (const Json& s : v) {
    if (!s.is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "\"", key, "\" should be a list of strings, not a list holding ", KindOf(s), "."));
    }
    out.push_back(s.get<std::string>());
  }
  return out;
}

Setter Strings(std::vector<std::string> ConvertOptions::*field, const char* key) {
  return [field, key](const Json& v, ConvertOptions* o) -> absl::Status {
    ASSIGN_OR_RETURN(o->*field, StringList(v, key));
    return absl::OkStatus();
  };
}

absl::Status SetManualSharding(const Json& v, ConvertOptions* o) {
  constexpr char kKey[] = "manual_sharding";
  if (!v.is_array()) return WrongType(kKey, "a list of lists of strings", v);
  std::vector<std::vector<std::string>> shards;
  for (const Json& inner : v) {
    if (!inner.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "manual_sharding must only contain lists of strings, not ", KindOf(inner), "."));
    }
    ASSIGN_OR_RETURN(std::vector<std::string> patterns, StringList(inner, kKey));
    shards.push_back(std::move(patterns));
  }
  o->manual_sharding = std::move(shards);
  return absl::OkStatus();
}

absl::Status SetGelu(const Json& v, ConvertOptions* o) {
  if (v.is_null()) {
    o->gelu_replacement.reset();
    return absl::OkStatus();
  }
  if (!v.is_object()) return WrongType("gelu_replacement", "an object or null", v);
  static const char* const kKeys[] = {"nodes", "node_as_gelu_input", "node_use_gelu_output"};
  std::vector<std::string> missing;
  for (const char* k : kKeys) {
    if (!v.contains(k)) missing.push_back(absl::StrCat("'", k, "'"));
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Missing items from gelu: [", absl::StrJoin(missing, ", "),
        "]. gelu must be a dictionary containing the following items { 'nodes': the node "
        "name of the gelu, 'node_as_gelu_input': the node in front of the gelu function, "
        "'node_use_gelu_output': the node at the back of gelu function }."));
  }
  for (const auto& [k, unused] : v.items()) {
    if (k != kKeys[0] && k != kKeys[1] && k != kKeys[2]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gelu_replacement has an unknown item '", k,
          "'; its items are 'nodes', 'node_as_gelu_input' and 'node_use_gelu_output'."));
    }
  }
  GeluReplacementOptions gelu;
  ASSIGN_OR_RETURN(gelu.nodes, StringList(v.at("nodes"), "gelu_replacement['nodes']"));
  ASSIGN_OR_RETURN(gelu.node_as_gelu_input,
                   StringList(v.at("node_as_gelu_input"), "gelu_replacement['node_as_gelu_input']"));
  ASSIGN_OR_RETURN(gelu.node_use_gelu_output, StringList(v.at("node_use_gelu_output"),
                                                         "gelu_replacement['node_use_gelu_output']"));
  o->gelu_replacement = std::move(gelu);
  return absl::OkStatus();
}

Setter Object(Json ConvertOptions::*field, const char* key) {
  return [field, key](const Json& v, ConvertOptions* o) -> absl::Status {
    if (!v.is_null() && !v.is_object()) return WrongType(key, "an object or null", v);
    o->*field = v;
    return absl::OkStatus();
  };
}

const std::map<std::string, Setter>& ConfigSetters() {
  static const auto* setters = new std::map<std::string, Setter>{
      {"excluded_nodes", Strings(&ConvertOptions::excluded_nodes, "excluded_nodes")},
      {"num_ipus", Int(&ConvertOptions::num_ipus, "num_ipus")},
      {"matmul_amp", Number(&ConvertOptions::matmul_amp, "matmul_amp")},
      {"conv_amp", Number(&ConvertOptions::conv_amp, "conv_amp")},
      {"matmul_partial_type",
       String(&ConvertOptions::matmul_partial_type, "matmul_partial_type", false)},
      {"conv_partial_type", String(&ConvertOptions::conv_partial_type, "conv_partial_type", false)},
      {"batch_size", Int(&ConvertOptions::batch_size, "batch_size")},
      {"batch_per_step", Int(&ConvertOptions::batch_per_step, "batch_per_step")},
      {"precision_mode", String(&ConvertOptions::precision_mode, "precision_mode", true)},
      {"no_ipu_placement", Bool(&ConvertOptions::no_ipu_placement, "no_ipu_placement")},
      {"int64_to_int32_conversion",
       Bool(&ConvertOptions::int64_to_int32_conversion, "int64_to_int32_conversion")},
      {"remove_excluded_nodes", Bool(&ConvertOptions::remove_excluded_nodes, "remove_excluded_nodes")},
      {"merge_subgraphs", Bool(&ConvertOptions::merge_subgraphs, "merge_subgraphs")},
      {"precision_conversion_excluded_nodes",
       Strings(&ConvertOptions::precision_conversion_excluded_nodes,
               "precision_conversion_excluded_nodes")},
      {"manual_sharding", SetManualSharding},
      {"gelu_replacement", SetGelu},
      {"embedded_runtime_save_config",
       Object(&ConvertOptions::embedded_runtime_save_config, "embedded_runtime_save_config")},
      {"pipeline_cfg", Object(&ConvertOptions::pipeline_cfg, "pipeline_cfg")},
  };
  return *setters;
}

// Written into conversion_params.json by convert; ignored when read back.
constexpr char kMd5sumKey[] = "md5sum";

absl::Status CheckAmp(double amp, absl::string_view name) {
  if (!(amp > 0 && amp <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " should be a number greater than 0 and at most 1 (the proportion of each "
              "tile's memory available to it), not ", amp, "."));
  }
  return absl::OkStatus();
}

absl::Status CheckPartialType(const std::string& type, absl::string_view name) {
  if (type != "float" && type != "half") {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " should be \"float\" or \"half\", not \"", type, "\"."));
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<ConvertFlag>& ConvertFlags() {
  static const auto* flags = new std::vector<ConvertFlag>{
      {"excluded_nodes", FlagArity::kList, "[]",
       "Nodes (regular expressions, matched anywhere in the name) kept off the IPU."},
      {"num_ipus", FlagArity::kValue, "1", "Number of IPUs."},
      {"matmul_amp", FlagArity::kValue, "0.6", "availableMemoryProportion of matmuls."},
      {"conv_amp", FlagArity::kValue, "0.6", "availableMemoryProportion of convolutions."},
      {"matmul_partial_type", FlagArity::kValue, "float", "Partials type of matmuls (float or half)."},
      {"conv_partial_type", FlagArity::kValue, "float",
       "Partials type of convolutions (float or half)."},
      {"batch_size", FlagArity::kValue, "1",
       "The batch size the converted model runs with: fixes inputs' unknown first dimension."},
      {"batch_per_step", FlagArity::kValue, "0",
       "Batches per step of the embedded runtime's loop (0: 1)."},
      {"precision_mode", FlagArity::kValue, "None", "The precision of the output model: FP16, FP32 or FP64."},
      {"no_ipu_placement", FlagArity::kSwitch, "off", "Do not place nodes on the IPU."},
      {"int64_to_int32_conversion", FlagArity::kSwitch, "off", "Convert int64 nodes to int32."},
      {"remove_excluded_nodes", FlagArity::kSwitch, "off",
       "Remove the excluded nodes (a CPU head of the graph) from the model."},
      {"merge_subgraphs", FlagArity::kSwitch, "off",
       "Merge the IPU subgraphs into one compiled cluster."},
      {"precision_conversion_excluded_nodes", FlagArity::kList, "[]",
       "Nodes (regular expressions) whose precision --precision_mode keeps."},
      {"manual_sharding", FlagArity::kValue, "[]",
       "A list of lists of regular expressions, one list per IPU, e.g. '[[\"^add$\"], [\"^mul$\"]]': "
       "matching nodes go to that IPU, the others to IPU 0."},
      {"embedded_runtime_save_config", FlagArity::kValue, "None",
       "A JSON object: embedded_runtime_exec_cachedir, runtime_api_timeout_us."},
      {"pipeline_cfg", FlagArity::kValue, "None", "A JSON object configuring pipelining."},
      {"config_file", FlagArity::kValue, "None", "Config file path (JSON format)."},
  };
  return *flags;
}

absl::Status SetConvertFlag(absl::string_view name, const std::vector<std::string>& values,
                            ConvertOptions* options) {
  const ConvertFlag* flag = nullptr;
  for (const ConvertFlag& f : ConvertFlags()) {
    if (f.name == name) flag = &f;
  }
  if (flag == nullptr) {
    std::vector<std::string> names;
    for (const ConvertFlag& f : ConvertFlags()) names.push_back("--" + f.name);
    return absl::InvalidArgumentError(absl::StrCat("convert ipu has no flag --", name,
                                                   "; its flags are ", absl::StrJoin(names, ", ")));
  }
  switch (flag->arity) {
    case FlagArity::kSwitch:
      if (!values.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      }
      break;
    case FlagArity::kValue:
      if (values.size() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " takes one value, got ", values.size()));
      }
      break;
    case FlagArity::kList:
      if (values.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " takes one or more values, got none"));
      }
      break;
  }
  ConvertOptions o = *options;
  const std::string value = values.empty() ? "" : values[0];
  auto integer = [&](int64_t* out) -> absl::Status {
    if (!absl::SimpleAtoi(value, out)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " should be an integer, not '", value, "'"));
    }
    return absl::OkStatus();
  };
  auto number = [&](double* out) -> absl::Status {
    if (!absl::SimpleAtod(value, out) || !std::isfinite(*out)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " should be a number, not '", value, "'"));
    }
    return absl::OkStatus();
  };
  auto object = [&](Json* out) -> absl::Status {
    ASSIGN_OR_RETURN(Json j, ParseJson(value, absl::StrCat("--", name)));
    if (!j.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " should be a JSON object, not ", KindOf(j)));
    }
    *out = std::move(j);
    return absl::OkStatus();
  };
  if (name == "excluded_nodes") {
    o.excluded_nodes = values;
  } else if (name == "num_ipus") {
    RETURN_IF_ERROR(integer(&o.num_ipus));
  } else if (name == "matmul_amp") {
    RETURN_IF_ERROR(number(&o.matmul_amp));
  } else if (name == "conv_amp") {
    RETURN_IF_ERROR(number(&o.conv_amp));
  } else if (name == "matmul_partial_type") {
    o.matmul_partial_type = value;
  } else if (name == "conv_partial_type") {
    o.conv_partial_type = value;
  } else if (name == "batch_size") {
    RETURN_IF_ERROR(integer(&o.batch_size));
  } else if (name == "batch_per_step") {
    RETURN_IF_ERROR(integer(&o.batch_per_step));
  } else if (name == "precision_mode") {
    o.precision_mode = value;
  } else if (name == "no_ipu_placement") {
    o.no_ipu_placement = true;
  } else if (name == "int64_to_int32_conversion") {
    o.int64_to_int32_conversion = true;
  } else if (name == "remove_excluded_nodes") {
    o.remove_excluded_nodes = true;
  } else if (name == "merge_subgraphs") {
    o.merge_subgraphs = true;
  } else if (name == "precision_conversion_excluded_nodes") {
    o.precision_conversion_excluded_nodes = values;
  } else if (name == "manual_sharding") {
    ASSIGN_OR_RETURN(o.manual_sharding, ParseListOfStringLists(value, "manual_sharding"));
  } else if (name == "embedded_runtime_save_config") {
    RETURN_IF_ERROR(object(&o.embedded_runtime_save_config));
  } else if (name == "pipeline_cfg") {
    RETURN_IF_ERROR(object(&o.pipeline_cfg));
  } else if (name == "config_file") {
    o.config_file = value;
  }
  *options = std::move(o);
  return absl::OkStatus();
}

const std::vector<std::string>& ConfigFileKeys() {
  static const auto* keys = [] {
    auto* k = new std::vector<std::string>;
    for (const auto& [key, setter] : ConfigSetters()) k->push_back(key);
    return k;
  }();
  return *keys;
}

absl::Status ApplyConfigFile(const std::string& path, ConvertOptions* options) {
  // access() answers for this process's permissions; a directory passes
  // it but does not read.
  std::error_code ec;
  if (access(path.c_str(), R_OK) != 0 || std::filesystem::is_directory(path, ec)) {
    const std::string message = absl::StrCat("config_file ", path, " is not readable.");
    return access(path.c_str(), F_OK) != 0 ? absl::NotFoundError(message)
                                           : absl::PermissionDeniedError(message);
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string what = absl::StrCat("config_file ", path);
  ASSIGN_OR_RETURN(Json config, ParseJson(text.str(), what));
  if (!config.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " should hold a JSON object of options, like {\"num_ipus\": 2}, not ",
        KindOf(config), "."));
  }
  ConvertOptions o = *options;
  for (const auto& [key, value] : config.items()) {
    if (key == kMd5sumKey) continue;
    auto it = ConfigSetters().find(key);
    if (it == ConfigSetters().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " has an unknown key \"", key,
                       "\"; the valid keys are: ", absl::StrJoin(ConfigFileKeys(), ", "), "."));
    }
    absl::Status s = it->second(value, &o);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
  }
  *options = std::move(o);
  return absl::OkStatus();
}

absl::Status ValidateConvertOptions(const ConvertOptions& options) {
  if (options.num_ipus <= 0) {
    return absl::InvalidArgumentError("num_ipus should be an integer, and greater than 0.");
  }
  if (options.batch_size <= 0) {
    return absl::InvalidArgumentError("batch_size should be an integer, and greater than 0.");
  }
  if (options.batch_per_step < 0) {
    return absl::InvalidArgumentError(
        "batch_per_step should be an integer, and not negative (0 means 1).");
  }
  if (!options.precision_mode.empty() && options.precision_mode != "FP16" &&
      options.precision_mode != "FP32" && options.precision_mode != "FP64") {
    return absl::InvalidArgumentError(absl::StrCat(
        "precision_mode should be FP16, FP32 or FP64, not \"", options.precision_mode, "\"."));
  }
  RETURN_IF_ERROR(CheckAmp(options.matmul_amp, "matmul_amp"));
  RETURN_IF_ERROR(CheckAmp(options.conv_amp, "conv_amp"));
  RETURN_IF_ERROR(CheckPartialType(options.matmul_partial_type, "matmul_partial_type"));
  RETURN_IF_ERROR(CheckPartialType(options.conv_partial_type, "conv_partial_type"));
  RETURN_IF_ERROR(NodePatterns::Compile(options.excluded_nodes, "excluded_nodes").status());
  RETURN_IF_ERROR(NodePatterns::Compile(options.precision_conversion_excluded_nodes,
                                        "precision_conversion_excluded_nodes")
                      .status());
  for (size_t i = 0; i < options.manual_sharding.size(); ++i) {
    RETURN_IF_ERROR(NodePatterns::Compile(options.manual_sharding[i],
                                          absl::StrCat("manual_sharding (IPU ", i, ")"))
                        .status());
  }
  if (options.gelu_replacement) {
    const GeluReplacementOptions& g = *options.gelu_replacement;
    RETURN_IF_ERROR(NodePatterns::Compile(g.nodes, "gelu_replacement['nodes']").status());
    RETURN_IF_ERROR(NodePatterns::Compile(g.node_as_gelu_input,
                                          "gelu_replacement['node_as_gelu_input']")
                        .status());
    RETURN_IF_ERROR(NodePatterns::Compile(g.node_use_gelu_output,
                                          "gelu_replacement['node_use_gelu_output']")
                        .status());
  }
  if (!options.embedded_runtime_save_config.is_null() &&
      !options.embedded_runtime_save_config.is_object()) {
    return absl::InvalidArgumentError(
        "embedded_runtime_save_config should be a JSON object, like "
        "{\"embedded_runtime_exec_cachedir\": \"poplar_exec\", \"runtime_api_timeout_us\": 5000}.");
  }
  if (!options.pipeline_cfg.is_null() && !options.pipeline_cfg.is_object()) {
    return absl::InvalidArgumentError(
        "pipeline_cfg should be a JSON object, like {\"converter\": \"auto\"}.");
  }
  return absl::OkStatus();
}

nlohmann::json ConvertOptionsToJson(const ConvertOptions& o) {
  Json j = Json::object();
  j["excluded_nodes"] = o.excluded_nodes;
  j["num_ipus"] = o.num_ipus;
  j["matmul_amp"] = o.matmul_amp;
  j["conv_amp"] = o.conv_amp;
  j["matmul_partial_type"] = o.matmul_partial_type;
  j["conv_partial_type"] = o.conv_partial_type;
  j["batch_size"] = o.batch_size;
  j["batch_per_step"] = o.batch_per_step;
  j["precision_mode"] = o.precision_mode.empty() ? Json() : Json(o.precision_mode);
  j["no_ipu_placement"] = o.no_ipu_placement;
  j["int64_to_int32_conversion"] = o.int64_to_int32_conversion;
  j["remove_excluded_nodes"] = o.remove_excluded_nodes;
  j["merge_subgraphs"] = o.merge_subgraphs;
  j["precision_conversion_excluded_nodes"] = o.precision_conversion_excluded_nodes;
  j["manual_sharding"] = o.manual_sharding;
  if (o.gelu_replacement) {
    j["gelu_replacement"] = {{"nodes", o.gelu_replacement->nodes},
                             {"node_as_gelu_input", o.gelu_replacement->node_as_gelu_input},
                             {"node_use_gelu_output", o.gelu_replacement->node_use_gelu_output}};
  } else {
    j["gelu_replacement"] = nullptr;
  }
  j["embedded_runtime_save_config"] = o.embedded_runtime_save_config;
  j["pipeline_cfg"] = o.pipeline_cfg;
  return j;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
