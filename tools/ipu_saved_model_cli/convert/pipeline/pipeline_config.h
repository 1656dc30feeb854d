// pipeline_cfg of `convert ... ipu`: the JSON object that selects and
// configures a pipelining converter, parsed and validated.
//
//   {"converter": "auto", "priority": "memory", "max_ipu_quantity": 8}
//   {"converter": "manual", "manual_pipeline_config": [["^dense_0/"], ["^dense_1/"]],
//    "device_info": [0, 1]}
//   {"converter": "load", "solution_path": "solution/manual.pipeconfig"}
//
//   ASSIGN_OR_RETURN(PipelineConfig c, ParsePipelineConfig(json));
//
// Keys and defaults are the original tool's (see each struct). Every error
// is InvalidArgument naming the key:
//  - "converter" is required and one of auto, manual, load;
//  - a key the converter does not know: "Unknown keyword K in pipeline_cfg
//    ..." (the original spelt it "Unkown", and never checked load's keys);
//  - a required key that is missing names that key (the original named
//    "converter" when load's solution_path was missing);
//  - a value of the wrong type is an error (the original ignored it).
// The original also required embedded_runtime_save_config with any
// pipeline_cfg, because its pipelines ran only in an embedded application
// runtime. Here the converted graph runs through the ordinary session
// without one; given one, the loop-repeat wrapper serves the pipelined
// graph from an application (convert/loop_repeat_wrapper.h).
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONFIG_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONFIG_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

enum class PipelineConverterKind { kAuto, kManual, kLoad };

// How the auto converter cuts the nodes into stages (split.h).
enum class SplitMethod { kExact, kGreedy };

struct AutoPipelineConfig {
  // Memory-balancing moves tried when a split does not fit.
  int fine_tune_iter = 5;
  // Profile on the IPU Model (the original's choice); recorded: profiling
  // here always runs on the simulator.
  bool ipu_model = true;
  // Stage counts tried: n = 2^k from 2^max(floor(log2 min), 1) to
  // 2^floor(log2 max), the first that fits wins.
  int max_ipu_quantity = 64;
  int min_ipu_quantity = 1;
  // What a split balances: "cycle" or "memory".
  std::string priority = "cycle";
  std::string profiling_root_dir = "profiling";
  std::string solution_dir = "solution";
  // Key "split": "exact" (default) or "greedy" (the original's find_opt,
  // for comparison). Not in the original.
  SplitMethod split = SplitMethod::kExact;
};

struct ManualPipelineConfig {
  // One list of regular expressions per stage (required).
  std::vector<std::vector<std::string>> manual_pipeline_config;
  // The IPU of each stage (required).
  std::vector<int> device_info;
  bool ipu_model = true;
  std::string profiling_root_dir = "profiling";
  std::string solution_dir = "solution";
  // Run the pipelined graph once on the simulator with profiling on,
  // writing its reports under profiling_root_dir.
  bool profiling_enable = true;
};

struct LoadPipelineConfig {
  std::string solution_path;  // required
  bool ipu_model = true;
  std::string profiling_root_dir = "profiling";
  bool profiling_enable = false;
};

struct PipelineConfig {
  PipelineConverterKind converter = PipelineConverterKind::kAuto;
  AutoPipelineConfig auto_config;
  ManualPipelineConfig manual;
  LoadPipelineConfig load;
};

absl::StatusOr<PipelineConfig> ParsePipelineConfig(const nlohmann::json& pipeline_cfg);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_PIPELINE_CONFIG_H_
