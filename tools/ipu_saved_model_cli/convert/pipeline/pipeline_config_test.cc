#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_config.h"

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

absl::StatusOr<PipelineConfig> Parse(const char* text) {
  return ParsePipelineConfig(nlohmann::json::parse(text));
}

std::string Error(const char* text) {
  absl::StatusOr<PipelineConfig> c = Parse(text);
  EXPECT_FALSE(c.ok()) << text;
  if (c.ok()) return "";
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << text;
  return std::string(c.status().message());
}

TEST(PipelineConfigTest, AutoDefaultsAreTheOriginals) {
  absl::StatusOr<PipelineConfig> c = Parse(R"({"converter": "auto"})");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->converter, PipelineConverterKind::kAuto);
  EXPECT_EQ(c->auto_config.fine_tune_iter, 5);
  EXPECT_TRUE(c->auto_config.ipu_model);
  EXPECT_EQ(c->auto_config.max_ipu_quantity, 64);
  EXPECT_EQ(c->auto_config.min_ipu_quantity, 1);
  EXPECT_EQ(c->auto_config.priority, "cycle");
  EXPECT_EQ(c->auto_config.profiling_root_dir, "profiling");
  EXPECT_EQ(c->auto_config.solution_dir, "solution");
  EXPECT_EQ(c->auto_config.split, SplitMethod::kExact);
}

TEST(PipelineConfigTest, AutoValues) {
  absl::StatusOr<PipelineConfig> c = Parse(
      R"({"converter": "auto", "fine_tune_iter": 0, "ipu_model": false, "max_ipu_quantity": 8,
          "min_ipu_quantity": 4, "priority": "memory", "profiling_root_dir": "p",
          "solution_dir": "s", "split": "greedy"})");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->auto_config.fine_tune_iter, 0);
  EXPECT_FALSE(c->auto_config.ipu_model);
  EXPECT_EQ(c->auto_config.max_ipu_quantity, 8);
  EXPECT_EQ(c->auto_config.min_ipu_quantity, 4);
  EXPECT_EQ(c->auto_config.priority, "memory");
  EXPECT_EQ(c->auto_config.profiling_root_dir, "p");
  EXPECT_EQ(c->auto_config.solution_dir, "s");
  EXPECT_EQ(c->auto_config.split, SplitMethod::kGreedy);
}

TEST(PipelineConfigTest, AutoErrors) {
  EXPECT_EQ(Error(R"({"converter": "auto", "fine_tune": 1})"),
            "Unknown keyword fine_tune in pipeline_cfg for the auto converter; its keywords are "
            "converter, fine_tune_iter, ipu_model, max_ipu_quantity, min_ipu_quantity, priority, "
            "profiling_root_dir, solution_dir, split.");
  EXPECT_EQ(Error(R"({"converter": "auto", "priority": "speed"})"),
            "The priority must be \"memory\" or \"cycle\", not \"speed\".");
  // The original silently ignored a value of the wrong type.
  EXPECT_EQ(Error(R"({"converter": "auto", "max_ipu_quantity": "8"})"),
            "pipeline_cfg key 'max_ipu_quantity' must be an integer, not a string (\"8\")");
  EXPECT_EQ(Error(R"({"converter": "auto", "max_ipu_quantity": 8.0})"),
            "pipeline_cfg key 'max_ipu_quantity' must be an integer, not a number with a "
            "fraction (8.0)");
  EXPECT_EQ(Error(R"({"converter": "auto", "max_ipu_quantity": 18446744073709551615})"),
            "pipeline_cfg key 'max_ipu_quantity' must be from 1 to 1024, not "
            "18446744073709551615");
  EXPECT_EQ(Error(R"({"converter": "auto", "min_ipu_quantity": 0})"),
            "pipeline_cfg key 'min_ipu_quantity' must be from 1 to 1024, not 0");
  EXPECT_EQ(Error(R"({"converter": "auto", "min_ipu_quantity": 8, "max_ipu_quantity": 4})"),
            "pipeline_cfg: min_ipu_quantity (8) must not be greater than max_ipu_quantity (4)");
  EXPECT_EQ(Error(R"({"converter": "auto", "max_ipu_quantity": 1})"),
            "pipeline_cfg: max_ipu_quantity must be at least 2: a pipeline has 2 or more stages");
  EXPECT_EQ(Error(R"({"converter": "auto", "ipu_model": 1})"),
            "pipeline_cfg key 'ipu_model' must be true or false, not a number (1)");
  EXPECT_EQ(Error(R"({"converter": "auto", "solution_dir": ""})"),
            "pipeline_cfg key 'solution_dir' is empty");
  EXPECT_EQ(Error(R"({"converter": "auto", "split": "best"})"),
            "pipeline_cfg key 'split' must be \"exact\" or \"greedy\", not \"best\"");
  EXPECT_EQ(Error(R"({"converter": "auto", "fine_tune_iter": -1})"),
            "pipeline_cfg key 'fine_tune_iter' must be from 0 to 1000, not -1");
}

TEST(PipelineConfigTest, ConverterKey) {
  EXPECT_EQ(Error(R"({"priority": "cycle"})"),
            "The `converter` argument is required in `pipeline_cfg`: \"auto\", \"manual\" or "
            "\"load\".");
  EXPECT_EQ(Error(R"({"converter": "magic"})"),
            "pipeline_cfg key 'converter' must be \"auto\", \"manual\" or \"load\", not "
            "\"magic\"");
  EXPECT_EQ(Error(R"({"converter": 1})"),
            "pipeline_cfg key 'converter' must be \"auto\", \"manual\" or \"load\", not 1");
  EXPECT_EQ(Error("[]"),
            "pipeline_cfg must be a JSON object such as {\"converter\": \"auto\"}, not an array");
}

TEST(PipelineConfigTest, Manual) {
  absl::StatusOr<PipelineConfig> c = Parse(
      R"({"converter": "manual", "manual_pipeline_config": [["^a"], ["^b", "c$"]],
          "device_info": [1, 0]})");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->converter, PipelineConverterKind::kManual);
  EXPECT_EQ(c->manual.manual_pipeline_config,
            (std::vector<std::vector<std::string>>{{"^a"}, {"^b", "c$"}}));
  EXPECT_EQ(c->manual.device_info, (std::vector<int>{1, 0}));
  EXPECT_TRUE(c->manual.ipu_model);
  EXPECT_TRUE(c->manual.profiling_enable);
  EXPECT_EQ(c->manual.profiling_root_dir, "profiling");
  EXPECT_EQ(c->manual.solution_dir, "solution");
}

TEST(PipelineConfigTest, ManualErrors) {
  // The original's help text used "regex", which it then rejected.
  EXPECT_EQ(Error(R"({"converter": "manual", "regex": [["^a"]], "device_info": [0]})"),
            "Unknown keyword regex in pipeline_cfg for the manual converter; its keywords are "
            "converter, ipu_model, profiling_root_dir, solution_dir, manual_pipeline_config, "
            "device_info, profiling_enable.");
  EXPECT_EQ(Error(R"({"converter": "manual", "device_info": [0]})"),
            "The `manual_pipeline_config` argument is required in `pipeline_cfg` for the manual "
            "converter.");
  EXPECT_EQ(Error(R"({"converter": "manual", "manual_pipeline_config": [["a"]]})"),
            "The `device_info` argument is required in `pipeline_cfg` for the manual converter.");
  EXPECT_EQ(Error(R"({"converter": "manual", "manual_pipeline_config": ["a"],
                      "device_info": [0]})"),
            "pipeline_cfg key 'manual_pipeline_config' must be a list of lists of regular "
            "expressions, one list per stage, not an array ([\"a\"])");
  EXPECT_EQ(Error(R"({"converter": "manual", "manual_pipeline_config": [[1]],
                      "device_info": [0]})"),
            "pipeline_cfg key 'manual_pipeline_config' must be a list of lists of regular "
            "expressions, one list per stage, not an array ([[1]])");
  EXPECT_EQ(Error(R"({"converter": "manual", "manual_pipeline_config": [["a"], ["b"]],
                      "device_info": [0]})"),
            "The length of the device info given (1) must be equal to the number of pipeline "
            "stages (2).");
  EXPECT_EQ(Error(R"({"converter": "manual", "manual_pipeline_config": [["a"]],
                      "device_info": [-1]})"),
            "pipeline_cfg key 'device_info' must be a list of IPU numbers (0 to 1023), not an "
            "array ([-1])");
}

TEST(PipelineConfigTest, Load) {
  absl::StatusOr<PipelineConfig> c =
      Parse(R"({"converter": "load", "solution_path": "s/manual.pipeconfig"})");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->converter, PipelineConverterKind::kLoad);
  EXPECT_EQ(c->load.solution_path, "s/manual.pipeconfig");
  EXPECT_FALSE(c->load.profiling_enable);
  EXPECT_TRUE(c->load.ipu_model);
  EXPECT_EQ(c->load.profiling_root_dir, "profiling");
  // The original named "converter" here.
  EXPECT_EQ(Error(R"({"converter": "load"})"),
            "The `solution_path` argument is required in `pipeline_cfg` for the load converter.");
  // ... and never checked load's keys.
  EXPECT_EQ(Error(R"({"converter": "load", "solution_path": "s", "solution_dir": "d"})"),
            "Unknown keyword solution_dir in pipeline_cfg for the load converter; its keywords "
            "are converter, solution_path, ipu_model, profiling_root_dir, profiling_enable.");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
