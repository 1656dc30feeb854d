#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_config.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/json_file.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using Json = nlohmann::json;

std::string Dump(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

absl::Status TypeError(const std::string& key, const std::string& want, const Json& v) {
  return absl::InvalidArgumentError(absl::StrCat("pipeline_cfg key '", key, "' must be ", want,
                                                 ", not ", JsonTypeName(v), " (", Dump(v), ")"));
}

absl::Status CheckKeys(const Json& cfg, const std::string& converter,
                       const std::vector<std::string>& known) {
  for (const auto& [key, value] : cfg.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Unknown keyword ", key, " in pipeline_cfg for the ", converter,
                       " converter; its keywords are ", absl::StrJoin(known, ", "), "."));
    }
  }
  return absl::OkStatus();
}

absl::Status Require(const Json& cfg, const std::string& converter, const std::string& key) {
  if (cfg.contains(key)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "The `", key, "` argument is required in `pipeline_cfg` for the ", converter, " converter."));
}

absl::Status GetBool(const Json& cfg, const std::string& key, bool* out) {
  auto it = cfg.find(key);
  if (it == cfg.end()) return absl::OkStatus();
  if (!it->is_boolean()) return TypeError(key, "true or false", *it);
  *out = it->get<bool>();
  return absl::OkStatus();
}

absl::Status GetString(const Json& cfg, const std::string& key, std::string* out) {
  auto it = cfg.find(key);
  if (it == cfg.end()) return absl::OkStatus();
  if (!it->is_string()) return TypeError(key, "a string", *it);
  *out = it->get<std::string>();
  if (out->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("pipeline_cfg key '", key, "' is empty"));
  }
  return absl::OkStatus();
}

// A JSON integer in [lo, hi] (huge values included: no overflow).
bool IntInRange(const Json& v, int lo, int hi, int* out) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi)) return false;
  const int64_t i = v.get<int64_t>();
  if (i < lo || i > hi) return false;
  *out = static_cast<int>(i);
  return true;
}

absl::Status GetInt(const Json& cfg, const std::string& key, int lo, int hi, int* out) {
  auto it = cfg.find(key);
  if (it == cfg.end()) return absl::OkStatus();
  if (!it->is_number_integer()) return TypeError(key, "an integer", *it);
  if (!IntInRange(*it, lo, hi, out)) {
    return absl::InvalidArgumentError(absl::StrCat("pipeline_cfg key '", key, "' must be from ", lo,
                                                   " to ", hi, ", not ", Dump(*it)));
  }
  return absl::OkStatus();
}

absl::StatusOr<AutoPipelineConfig> ParseAuto(const Json& cfg) {
  RETURN_IF_ERROR(
      CheckKeys(cfg, "auto",
                {"converter", "fine_tune_iter", "ipu_model", "max_ipu_quantity", "min_ipu_quantity",
                 "priority", "profiling_root_dir", "solution_dir", "split"}));
  AutoPipelineConfig c;
  RETURN_IF_ERROR(GetInt(cfg, "fine_tune_iter", 0, 1000, &c.fine_tune_iter));
  RETURN_IF_ERROR(GetBool(cfg, "ipu_model", &c.ipu_model));
  RETURN_IF_ERROR(GetInt(cfg, "max_ipu_quantity", 1, 1024, &c.max_ipu_quantity));
  RETURN_IF_ERROR(GetInt(cfg, "min_ipu_quantity", 1, 1024, &c.min_ipu_quantity));
  if (c.min_ipu_quantity > c.max_ipu_quantity) {
    return absl::InvalidArgumentError(
        absl::StrCat("pipeline_cfg: min_ipu_quantity (", c.min_ipu_quantity,
                     ") must not be greater than max_ipu_quantity (", c.max_ipu_quantity, ")"));
  }
  if (c.max_ipu_quantity < 2) {
    return absl::InvalidArgumentError(
        "pipeline_cfg: max_ipu_quantity must be at least 2: a pipeline has 2 or more stages");
  }
  RETURN_IF_ERROR(GetString(cfg, "priority", &c.priority));
  if (c.priority != "cycle" && c.priority != "memory") {
    return absl::InvalidArgumentError(
        absl::StrCat("The priority must be \"memory\" or \"cycle\", not \"", c.priority, "\"."));
  }
  RETURN_IF_ERROR(GetString(cfg, "profiling_root_dir", &c.profiling_root_dir));
  RETURN_IF_ERROR(GetString(cfg, "solution_dir", &c.solution_dir));
  std::string split = "exact";
  RETURN_IF_ERROR(GetString(cfg, "split", &split));
  if (split != "exact" && split != "greedy") {
    return absl::InvalidArgumentError(absl::StrCat(
        "pipeline_cfg key 'split' must be \"exact\" or \"greedy\", not \"", split, "\""));
  }
  c.split = split == "exact" ? SplitMethod::kExact : SplitMethod::kGreedy;
  return c;
}

absl::StatusOr<ManualPipelineConfig> ParseManual(const Json& cfg) {
  RETURN_IF_ERROR(CheckKeys(cfg, "manual",
                            {"converter", "ipu_model", "profiling_root_dir", "solution_dir",
                             "manual_pipeline_config", "device_info", "profiling_enable"}));
  RETURN_IF_ERROR(Require(cfg, "manual", "manual_pipeline_config"));
  RETURN_IF_ERROR(Require(cfg, "manual", "device_info"));
  ManualPipelineConfig c;
  const Json& stages = cfg["manual_pipeline_config"];
  constexpr char kListsOfStrings[] = "a list of lists of regular expressions, one list per stage";
  if (!stages.is_array() || stages.empty()) {
    return TypeError("manual_pipeline_config", kListsOfStrings, stages);
  }
  for (const Json& stage : stages) {
    if (!stage.is_array()) return TypeError("manual_pipeline_config", kListsOfStrings, stages);
    std::vector<std::string> regexes;
    for (const Json& r : stage) {
      if (!r.is_string()) return TypeError("manual_pipeline_config", kListsOfStrings, stages);
      regexes.push_back(r.get<std::string>());
    }
    c.manual_pipeline_config.push_back(std::move(regexes));
  }
  const Json& devices = cfg["device_info"];
  if (!devices.is_array()) return TypeError("device_info", "a list of IPU numbers", devices);
  for (const Json& d : devices) {
    int ipu = 0;
    if (!IntInRange(d, 0, 1023, &ipu)) {
      return TypeError("device_info", "a list of IPU numbers (0 to 1023)", devices);
    }
    c.device_info.push_back(ipu);
  }
  if (c.device_info.size() != c.manual_pipeline_config.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("The length of the device info given (", c.device_info.size(),
                     ") must be equal to the number of pipeline stages (",
                     c.manual_pipeline_config.size(), ")."));
  }
  RETURN_IF_ERROR(GetBool(cfg, "ipu_model", &c.ipu_model));
  RETURN_IF_ERROR(GetString(cfg, "profiling_root_dir", &c.profiling_root_dir));
  RETURN_IF_ERROR(GetString(cfg, "solution_dir", &c.solution_dir));
  RETURN_IF_ERROR(GetBool(cfg, "profiling_enable", &c.profiling_enable));
  return c;
}

absl::StatusOr<LoadPipelineConfig> ParseLoad(const Json& cfg) {
  RETURN_IF_ERROR(CheckKeys(
      cfg, "load",
      {"converter", "solution_path", "ipu_model", "profiling_root_dir", "profiling_enable"}));
  RETURN_IF_ERROR(Require(cfg, "load", "solution_path"));
  LoadPipelineConfig c;
  RETURN_IF_ERROR(GetString(cfg, "solution_path", &c.solution_path));
  RETURN_IF_ERROR(GetBool(cfg, "ipu_model", &c.ipu_model));
  RETURN_IF_ERROR(GetString(cfg, "profiling_root_dir", &c.profiling_root_dir));
  RETURN_IF_ERROR(GetBool(cfg, "profiling_enable", &c.profiling_enable));
  return c;
}

}  // namespace

absl::StatusOr<PipelineConfig> ParsePipelineConfig(const nlohmann::json& cfg) {
  if (!cfg.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pipeline_cfg must be a JSON object such as {\"converter\": \"auto\"}, not ",
                     JsonTypeName(cfg)));
  }
  auto converter = cfg.find("converter");
  if (converter == cfg.end()) {
    return absl::InvalidArgumentError(
        "The `converter` argument is required in `pipeline_cfg`: \"auto\", \"manual\" or "
        "\"load\".");
  }
  const std::string name = converter->is_string() ? converter->get<std::string>() : "";
  PipelineConfig c;
  if (name == "auto") {
    c.converter = PipelineConverterKind::kAuto;
    ASSIGN_OR_RETURN(c.auto_config, ParseAuto(cfg));
  } else if (name == "manual") {
    c.converter = PipelineConverterKind::kManual;
    ASSIGN_OR_RETURN(c.manual, ParseManual(cfg));
  } else if (name == "load") {
    c.converter = PipelineConverterKind::kLoad;
    ASSIGN_OR_RETURN(c.load, ParseLoad(cfg));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("pipeline_cfg key 'converter' must be \"auto\", \"manual\" or \"load\", not ",
                     Dump(*converter)));
  }
  return c;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
