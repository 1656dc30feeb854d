// ipu_saved_model_cli's convert on the command line, then the converted
// model run by the same tool on the simulated IPUs: TensorFlow's
// half_plus_two (y = Add(Mul(a, x), b)) gives [2.5, 3, 4.5] converted plainly, with merged
// subgraphs (honoured on the command line, unlike the original), sharded
// and pipelined over 2 IPUs, and compiled into an application served by the
// embedded runtime (plainly, sharded and pipelined); bad flags and config files fail with the
// flag's message and write nothing.
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"
#include "tools/ipu_saved_model_cli/cli_testing.h"

namespace tensorflow_ipu {
namespace {

using saved_model_testing::FreshTestDir;
using saved_model_testing::kHalfPlusTwo;
using ::testing::HasSubstr;
using saved_model_cli::Cli;
using saved_model_cli::CliOutcome;

std::vector<std::string> Convert(const std::string& output_dir,
                                 const std::vector<std::string>& ipu_flags) {
  std::vector<std::string> args = {"convert", "--dir", kHalfPlusTwo, "--output_dir", output_dir,
                                   "--tag_set", "serve", "ipu"};
  args.insert(args.end(), ipu_flags.begin(), ipu_flags.end());
  return args;
}

// `run` of the converted model on `num_ipus` simulated IPUs.
CliOutcome RunOnIpus(const std::string& dir, int num_ipus) {
  return Cli({"run", "--dir", dir, "--tag_set", "serve", "--signature_def", "serving_default",
              "--input_exprs", "x=[[1],[2],[5]]", "--init_ipu", "--num_ipus",
              std::to_string(num_ipus)});
}

constexpr char kExpected[] =
    "Initializing IPU System ...\nResult for output key y:\n[[2.5]\n [3. ]\n [4.5]]\n";

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(ConvertCliTest, ConvertedModelsRunOnTheIpusWithTheOriginalsNumbers) {
  const std::string dir = FreshTestDir("convert_cli");
  struct Case {
    std::string name;
    std::vector<std::string> flags;
    int num_ipus;
  };
  const std::vector<Case> cases = {
      {"plain", {"--batch_size", "3"}, 1},
      {"merged", {"--batch_size", "3", "--merge_subgraphs"}, 1},
      {"sharded", {"--batch_size", "3", "--num_ipus", "2", "--manual_sharding",
                   "[['^nothing$'], ['^y$']]"}, 2},
      {"pipelined", {"--batch_size", "3", "--num_ipus", "2", "--pipeline_cfg",
                     R"({"converter": "manual", "manual_pipeline_config": [["^Mul"], ["^Add", "^y"]],
                         "device_info": [0, 1], "solution_dir": ")" + dir + R"(/solution"})"}, 2},
      // The IPU part compiled into an application, served by the embedded
      // runtime: plainly, sharded, and around the pipelining converter.
      {"embedded", {"--batch_size", "3", "--int64_to_int32_conversion", "--batch_per_step", "4",
                    "--embedded_runtime_save_config",
                    R"({"embedded_runtime_exec_cachedir": ")" + dir +
                        R"(/cache_embedded", "runtime_api_timeout_us": 1000})"}, 1},
      {"embedded_sharded", {"--batch_size", "3", "--int64_to_int32_conversion", "--num_ipus", "2",
                            "--manual_sharding", "[['^nothing$'], ['^y$']]",
                            "--embedded_runtime_save_config",
                            R"({"embedded_runtime_exec_cachedir": ")" + dir +
                                R"(/cache_sharded", "runtime_api_timeout_us": 1000})"}, 2},
      {"embedded_pipelined", {"--batch_size", "3", "--int64_to_int32_conversion", "--num_ipus", "2",
                              "--pipeline_cfg",
                              R"({"converter": "manual", "manual_pipeline_config": [["^Mul"], ["^Add", "^y"]],
                                  "device_info": [0, 1], "solution_dir": ")" + dir + R"(/solution2"})",
                              "--embedded_runtime_save_config",
                              R"({"embedded_runtime_exec_cachedir": ")" + dir +
                                  R"(/cache_pipelined", "runtime_api_timeout_us": 1000})"}, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string out_dir = dir + "/" + c.name;
    CliOutcome o = Cli(Convert(out_dir, c.flags));
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out, "SavedModel written to: " + out_dir +
                         "/saved_model.pb\nConversion parameters written to: " + out_dir +
                         "/conversion_params.json\n");
    o = RunOnIpus(out_dir, c.num_ipus);
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out, kExpected);
  }
  // What each conversion was asked is in its parameters: the command
  // line's --merge_subgraphs was honoured.
  EXPECT_EQ(ReadJson(dir + "/plain/conversion_params.json")["merge_subgraphs"], false);
  EXPECT_EQ(ReadJson(dir + "/merged/conversion_params.json")["merge_subgraphs"], true);
  EXPECT_EQ(ReadJson(dir + "/sharded/conversion_params.json")["num_ipus"], 2);
  // The manual pipeline wrote its solution where it was told.
  const nlohmann::json solution = ReadJson(dir + "/solution/manual.pipeconfig");
  EXPECT_EQ(solution["pipeline_mapping"]["Mul"], 0);
  EXPECT_EQ(solution["pipeline_mapping"]["Add"], 1);
  EXPECT_EQ(solution["device_mapping"], nlohmann::json::array({0, 1}));
  // The embedded conversions wrote their applications where they were told:
  // a loop of batch_per_step calls, and a pipeline of batch_per_step (0: 1)
  // x 2 stages micro-batches over IPUs 0 and 1.
  std::map<std::string, int64_t> calls_per_run = {
      {"cache_embedded", 4}, {"cache_sharded", 1}, {"cache_pipelined", 2}};
  for (const auto& [cache, calls] : calls_per_run) {
    absl::StatusOr<ApplicationExecutableProto> exe =
        ReadApplicationExecutable(dir + "/" + cache + "/application.poplar_exec");
    ASSERT_TRUE(exe.ok()) << exe.status();
    EXPECT_EQ(exe->embedded_runtime_config().iterations(), calls) << cache;
    EXPECT_EQ(exe->embedded_runtime_config().num_ipus(), cache == "cache_embedded" ? 1 : 2);
  }
}

TEST(ConvertCliTest, TheEmbeddedRuntimesConfigIsCheckedInTheOriginalsWords) {
  const std::string dir = FreshTestDir("convert_cli_embedded_bad");
  const std::string out_dir = dir + "/out";
  const std::string config =
      R"({"embedded_runtime_exec_cachedir": ")" + dir + R"(/cache", "runtime_api_timeout_us": 5000})";
  CliOutcome o = Cli(Convert(out_dir, {"--embedded_runtime_save_config", config}));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err,
            "The `int64_to_int32_conversion` must be True with `int64_to_int32_conversion=True` "
            "during the embedded application runtime compilation.\n");
  o = Cli(Convert(out_dir, {"--int64_to_int32_conversion", "--merge_subgraphs",
                            "--embedded_runtime_save_config", config}));
  EXPECT_EQ(o.status, 1);
  EXPECT_THAT(o.err, HasSubstr("The `merge_subgraphs` must be false"));
  o = Cli(Convert(out_dir, {"--int64_to_int32_conversion", "--embedded_runtime_save_config",
                            R"({"runtime_api_timeout_us": 5000})"}));
  EXPECT_EQ(o.status, 1);
  EXPECT_THAT(o.err, HasSubstr("Key 'embedded_runtime_exec_cachedir' missing from "
                               "`embedded_runtime_save_config`."));
  o = Cli(Convert(out_dir, {"--int64_to_int32_conversion", "--embedded_runtime_save_config",
                            R"({"embedded_runtime_exec_cachedir": "c", "runtime_api_timeout_us": -1})"}));
  EXPECT_EQ(o.status, 1);
  EXPECT_THAT(o.err, HasSubstr("runtime_api_timeout_us should be an integer number of "
                               "microseconds greater than 0, not -1"));
  EXPECT_FALSE(std::filesystem::exists(out_dir));
  EXPECT_FALSE(std::filesystem::exists(dir + "/cache"));
}

TEST(ConvertCliTest, BadFlagsAndConfigFilesFailWithTheirMessageAndWriteNothing) {
  const std::string dir = FreshTestDir("convert_cli_bad");
  const std::string out_dir = dir + "/out";
  CliOutcome o = Cli(Convert(out_dir, {"--num_ipus", "0"}));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "num_ipus should be an integer, and greater than 0.\n");
  o = Cli(Convert(out_dir, {"--num_ipus", "two"}));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "--num_ipus should be an integer, not 'two'\n");
  o = Cli(Convert(out_dir, {"--no_such_flag"}));
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.err, HasSubstr("error: unrecognized arguments: --no_such_flag"));
  // The original ignores a config value of the wrong type; here it is an
  // error naming the key.
  const std::string config = dir + "/config.json";
  std::ofstream(config) << R"({"num_ipus": "2"})";
  o = Cli(Convert(out_dir, {"--config_file", config}));
  EXPECT_EQ(o.status, 1);
  EXPECT_THAT(o.err, HasSubstr("\"num_ipus\" should be an integer, not a string"));
  o = Cli(Convert(out_dir, {"--config_file", dir + "/missing.json"}));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "config_file " + dir + "/missing.json is not readable.\n");
  o = Cli(Convert(out_dir, {"--pipeline_cfg", R"({"converter": "load"})"}));
  EXPECT_EQ(o.status, 1);
  EXPECT_THAT(o.err, HasSubstr("solution_path"));
  EXPECT_FALSE(std::filesystem::exists(out_dir));
  // The tool still converts afterwards.
  o = Cli(Convert(out_dir, {"--batch_size", "3"}));
  EXPECT_EQ(o.status, 0) << o.err;
}

TEST(ConvertCliTest, HelpListsConvertAndItsIpuFlags) {
  CliOutcome o = Cli({"--help"});
  EXPECT_EQ(o.status, 0);
  EXPECT_THAT(o.out, HasSubstr("convert"));
  o = Cli({"convert", "--dir", "d", "--output_dir", "o", "--tag_set", "serve", "ipu", "--help"});
  EXPECT_EQ(o.status, 0) << o.err;
  for (const char* flag : {"--num_ipus", "--manual_sharding", "--pipeline_cfg",
                           "--merge_subgraphs", "--config_file", "--precision_mode"}) {
    EXPECT_THAT(o.out, HasSubstr(flag));
  }
}

}  // namespace
}  // namespace tensorflow_ipu
