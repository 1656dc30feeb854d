#include "tools/ipu_saved_model_cli/convert/convert_options.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ConvertOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = saved_model_testing::FreshTestDir("convert_options"); }
  // A config file holding `json`.
  std::string Config(const std::string& json) {
    const std::string path = dir_ + "/config.json";
    saved_model_testing::WriteBytes(path, json);
    return path;
  }
  absl::Status Apply(const std::string& json, ConvertOptions* options) {
    return ApplyConfigFile(Config(json), options);
  }
  std::string dir_;
};

TEST_F(ConvertOptionsTest, DefaultsAreTheOriginals) {
  ConvertOptions o;
  EXPECT_TRUE(o.excluded_nodes.empty());
  EXPECT_EQ(o.num_ipus, 1);
  EXPECT_EQ(o.matmul_amp, 0.6);
  EXPECT_EQ(o.conv_amp, 0.6);
  EXPECT_EQ(o.matmul_partial_type, "float");
  EXPECT_EQ(o.conv_partial_type, "float");
  EXPECT_EQ(o.batch_size, 1);
  EXPECT_EQ(o.batch_per_step, 0);
  EXPECT_EQ(o.precision_mode, "");
  EXPECT_FALSE(o.no_ipu_placement);
  EXPECT_FALSE(o.int64_to_int32_conversion);
  EXPECT_FALSE(o.remove_excluded_nodes);
  EXPECT_FALSE(o.merge_subgraphs);
  EXPECT_TRUE(o.precision_conversion_excluded_nodes.empty());
  EXPECT_TRUE(o.manual_sharding.empty());
  EXPECT_FALSE(o.gelu_replacement.has_value());
  EXPECT_TRUE(o.embedded_runtime_save_config.is_null());
  EXPECT_TRUE(o.pipeline_cfg.is_null());
  EXPECT_EQ(o.config_file, "");
  EXPECT_EQ(o.tag_set, "serve");
  TF_EXPECT_OK(ValidateConvertOptions(o));
}

TEST_F(ConvertOptionsTest, EveryFlagSetsItsOption) {
  ConvertOptions o;
  TF_ASSERT_OK(SetConvertFlag("excluded_nodes", {"^a$", "b"}, &o));
  TF_ASSERT_OK(SetConvertFlag("num_ipus", {"2"}, &o));
  TF_ASSERT_OK(SetConvertFlag("matmul_amp", {"0.3"}, &o));
  TF_ASSERT_OK(SetConvertFlag("conv_amp", {"1"}, &o));
  TF_ASSERT_OK(SetConvertFlag("matmul_partial_type", {"half"}, &o));
  TF_ASSERT_OK(SetConvertFlag("conv_partial_type", {"half"}, &o));
  TF_ASSERT_OK(SetConvertFlag("batch_size", {"4"}, &o));
  TF_ASSERT_OK(SetConvertFlag("batch_per_step", {"8"}, &o));
  TF_ASSERT_OK(SetConvertFlag("precision_mode", {"FP16"}, &o));
  TF_ASSERT_OK(SetConvertFlag("no_ipu_placement", {}, &o));
  TF_ASSERT_OK(SetConvertFlag("int64_to_int32_conversion", {}, &o));
  TF_ASSERT_OK(SetConvertFlag("remove_excluded_nodes", {}, &o));
  TF_ASSERT_OK(SetConvertFlag("merge_subgraphs", {}, &o));
  TF_ASSERT_OK(SetConvertFlag("precision_conversion_excluded_nodes", {"softmax"}, &o));
  TF_ASSERT_OK(SetConvertFlag("manual_sharding", {"[['^add$'], [\"^mul$\"]]"}, &o));
  TF_ASSERT_OK(SetConvertFlag("embedded_runtime_save_config",
                              {R"({"embedded_runtime_exec_cachedir": "c", "runtime_api_timeout_us": 9})"},
                              &o));
  TF_ASSERT_OK(SetConvertFlag("pipeline_cfg", {R"({"converter": "auto"})"}, &o));
  TF_ASSERT_OK(SetConvertFlag("config_file", {"/x.json"}, &o));
  EXPECT_THAT(o.excluded_nodes, ElementsAre("^a$", "b"));
  EXPECT_EQ(o.num_ipus, 2);
  EXPECT_EQ(o.matmul_amp, 0.3);
  EXPECT_EQ(o.conv_amp, 1.0);
  EXPECT_EQ(o.matmul_partial_type, "half");
  EXPECT_EQ(o.conv_partial_type, "half");
  EXPECT_EQ(o.batch_size, 4);
  EXPECT_EQ(o.batch_per_step, 8);
  EXPECT_EQ(o.precision_mode, "FP16");
  EXPECT_TRUE(o.no_ipu_placement);
  EXPECT_TRUE(o.int64_to_int32_conversion);
  EXPECT_TRUE(o.remove_excluded_nodes);
  // The original drops --merge_subgraphs; here the flag sets it.
  EXPECT_TRUE(o.merge_subgraphs);
  EXPECT_THAT(o.precision_conversion_excluded_nodes, ElementsAre("softmax"));
  ASSERT_EQ(o.manual_sharding.size(), 2u);
  EXPECT_THAT(o.manual_sharding[0], ElementsAre("^add$"));
  EXPECT_THAT(o.manual_sharding[1], ElementsAre("^mul$"));
  EXPECT_EQ(o.embedded_runtime_save_config["runtime_api_timeout_us"].get<int>(), 9);
  EXPECT_EQ(o.pipeline_cfg["converter"].get<std::string>(), "auto");
  EXPECT_EQ(o.config_file, "/x.json");
  // Every flag of the list was set above.
  EXPECT_EQ(ConvertFlags().size(), 18u);
}

TEST_F(ConvertOptionsTest, BadFlagValuesNameTheFlagAndLeaveTheOptions) {
  ConvertOptions o;
  absl::Status s = SetConvertFlag("num_ipus", {"two"}, &o);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "--num_ipus should be an integer, not 'two'");
  EXPECT_EQ(SetConvertFlag("num_ipus", {"99999999999999999999"}, &o).message(),
            "--num_ipus should be an integer, not '99999999999999999999'");
  EXPECT_EQ(SetConvertFlag("matmul_amp", {"nan"}, &o).message(),
            "--matmul_amp should be a number, not 'nan'");
  EXPECT_EQ(SetConvertFlag("num_ipus", {}, &o).message(), "--num_ipus takes one value, got 0");
  EXPECT_EQ(SetConvertFlag("merge_subgraphs", {"true"}, &o).message(),
            "--merge_subgraphs takes no value");
  EXPECT_EQ(SetConvertFlag("excluded_nodes", {}, &o).message(),
            "--excluded_nodes takes one or more values, got none");
  EXPECT_EQ(SetConvertFlag("pipeline_cfg", {"[1]"}, &o).message(),
            "--pipeline_cfg should be a JSON object, not a list");
  EXPECT_THAT(std::string(SetConvertFlag("pipeline_cfg", {"{"}, &o).message()),
              HasSubstr("--pipeline_cfg is not valid JSON: parse error at line 1, column 2: syntax "
                        "error while parsing object key"));
  EXPECT_EQ(SetConvertFlag("manual_sharding", {"['a']"}, &o).message(),
            "manual_sharding must only contain lists of strings, not str.");
  s = SetConvertFlag("num_ipu", {"2"}, &o);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("convert ipu has no flag --num_ipu; its flags are --excluded_nodes, "
                        "--num_ipus,"));
  EXPECT_EQ(o.num_ipus, 1);
  EXPECT_TRUE(o.manual_sharding.empty());
  EXPECT_TRUE(o.pipeline_cfg.is_null());
}

TEST_F(ConvertOptionsTest, TheConfigFileOverridesTheFlags) {
  ConvertOptions o;
  TF_ASSERT_OK(SetConvertFlag("num_ipus", {"4"}, &o));
  TF_ASSERT_OK(SetConvertFlag("precision_mode", {"FP16"}, &o));
  TF_ASSERT_OK(Apply(R"({
      "num_ipus": 2, "matmul_amp": 1, "conv_amp": 0.25, "batch_size": 3,
      "precision_mode": null, "merge_subgraphs": true,
      "excluded_nodes": ["^x$"], "manual_sharding": [["^add"], ["^mul"]],
      "gelu_replacement": {"nodes": ["gelu/"], "node_as_gelu_input": ["dense/BiasAdd$"],
                           "node_use_gelu_output": ["out"]},
      "pipeline_cfg": {"converter": "manual"}, "md5sum": "ignored"})",
                     &o));
  EXPECT_EQ(o.num_ipus, 2);
  // An integer is a number: the original ignores "matmul_amp": 1.
  EXPECT_EQ(o.matmul_amp, 1.0);
  EXPECT_EQ(o.conv_amp, 0.25);
  EXPECT_EQ(o.batch_size, 3);
  EXPECT_EQ(o.precision_mode, "");
  EXPECT_TRUE(o.merge_subgraphs);
  EXPECT_THAT(o.excluded_nodes, ElementsAre("^x$"));
  ASSERT_EQ(o.manual_sharding.size(), 2u);
  EXPECT_THAT(o.manual_sharding[1], ElementsAre("^mul"));
  ASSERT_TRUE(o.gelu_replacement.has_value());
  EXPECT_THAT(o.gelu_replacement->node_as_gelu_input, ElementsAre("dense/BiasAdd$"));
  EXPECT_EQ(o.pipeline_cfg["converter"].get<std::string>(), "manual");
  TF_EXPECT_OK(ValidateConvertOptions(o));
}

TEST_F(ConvertOptionsTest, AValueOfTheWrongTypeIsAnErrorNamingKeyAndTypes) {
  const std::string path = Config("{}");
  struct Case {
    std::string json;
    std::string message;
  } cases[] = {
      {R"({"num_ipus": "2"})", "\"num_ipus\" should be an integer, not a string."},
      {R"({"num_ipus": 2.5})", "\"num_ipus\" should be an integer, not a number with a fraction."},
      {R"({"num_ipus": 18446744073709551615})",
       "\"num_ipus\" is 18446744073709551615, which is too large."},
      {R"({"matmul_amp": "0.5"})", "\"matmul_amp\" should be a number, not a string."},
      {R"({"no_ipu_placement": 1})",
       "\"no_ipu_placement\" should be a boolean (true or false), not an integer."},
      {R"({"precision_mode": 16})", "\"precision_mode\" should be a string or null, not an integer."},
      {R"({"matmul_partial_type": null})", "\"matmul_partial_type\" should be a string, not null."},
      {R"({"excluded_nodes": "a"})", "\"excluded_nodes\" should be a list of strings, not a string."},
      {R"({"excluded_nodes": ["a", 1]})",
       "\"excluded_nodes\" should be a list of strings, not a list holding an integer."},
      {R"({"manual_sharding": ["a"]})",
       "manual_sharding must only contain lists of strings, not a string."},
      {R"({"manual_sharding": {"a": 1}})",
       "\"manual_sharding\" should be a list of lists of strings, not an object."},
      {R"({"pipeline_cfg": "auto"})", "\"pipeline_cfg\" should be an object or null, not a string."},
      {R"({"gelu_replacement": []})", "\"gelu_replacement\" should be an object or null, not a list."},
  };
  for (const Case& c : cases) {
    ConvertOptions o;
    absl::Status s = Apply(c.json, &o);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.json;
    EXPECT_EQ(s.message(), "config_file " + path + ": " + c.message) << c.json;
    // Nothing was set.
    EXPECT_EQ(o.num_ipus, 1);
  }
}

TEST_F(ConvertOptionsTest, AnUnknownKeyIsNamedWithTheValidKeys) {
  ConvertOptions o;
  absl::Status s = Apply(R"({"num_ipus": 2, "num_ipu": 2})", &o);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "config_file " + dir_ + "/config.json has an unknown key \"num_ipu\"; the valid keys "
            "are: batch_per_step, batch_size, conv_amp, conv_partial_type, "
            "embedded_runtime_save_config, excluded_nodes, gelu_replacement, "
            "int64_to_int32_conversion, manual_sharding, matmul_amp, matmul_partial_type, "
            "merge_subgraphs, no_ipu_placement, num_ipus, pipeline_cfg, "
            "precision_conversion_excluded_nodes, precision_mode, remove_excluded_nodes.");
  EXPECT_EQ(o.num_ipus, 1);
}

TEST_F(ConvertOptionsTest, GeluNeedsItsThreeItems) {
  ConvertOptions o;
  absl::Status s = Apply(R"({"gelu_replacement": {"nodes": ["g"]}})", &o);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "config_file " + dir_ +
                "/config.json: Missing items from gelu: ['node_as_gelu_input', "
                "'node_use_gelu_output']. gelu must be a dictionary containing the following "
                "items { 'nodes': the node name of the gelu, 'node_as_gelu_input': the node in "
                "front of the gelu function, 'node_use_gelu_output': the node at the back of "
                "gelu function }.");
  s = Apply(R"({"gelu_replacement": {"nodes": ["g"], "node_as_gelu_input": "x",
                                     "node_use_gelu_output": []}})", &o);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("\"gelu_replacement['node_as_gelu_input']\" should be a list of strings, "
                        "not a string."));
}

TEST_F(ConvertOptionsTest, UnreadableOrMalformedFiles) {
  ConvertOptions o;
  absl::Status s = ApplyConfigFile(dir_ + "/missing.json", &o);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "config_file " + dir_ + "/missing.json is not readable.");
  s = ApplyConfigFile(dir_, &o);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(), "config_file " + dir_ + " is not readable.");
  s = Apply("", &o);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("config_file " + dir_ + "/config.json is not valid JSON: parse error at "
                        "line 1, column 1: syntax error while parsing value"));
  s = Apply("{\"num_ipus\": 2,}", &o);
  EXPECT_THAT(std::string(s.message()), HasSubstr("line 1, column 16"));
  s = Apply("[1, 2]", &o);
  EXPECT_EQ(s.message(), "config_file " + dir_ +
                             "/config.json should hold a JSON object of options, like "
                             "{\"num_ipus\": 2}, not a list.");
  s = Apply(std::string(100000, '['), &o);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ConvertOptionsTest, ValidationUsesTheOriginalsWording) {
  auto check = [](const std::function<void(ConvertOptions*)>& edit) {
    ConvertOptions o;
    edit(&o);
    return ValidateConvertOptions(o);
  };
  EXPECT_EQ(check([](ConvertOptions* o) { o->num_ipus = 0; }).message(),
            "num_ipus should be an integer, and greater than 0.");
  EXPECT_EQ(check([](ConvertOptions* o) { o->num_ipus = -3; }).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(check([](ConvertOptions* o) { o->batch_size = 0; }).message(),
            "batch_size should be an integer, and greater than 0.");
  EXPECT_EQ(check([](ConvertOptions* o) { o->batch_per_step = -1; }).message(),
            "batch_per_step should be an integer, and not negative (0 means 1).");
  EXPECT_EQ(check([](ConvertOptions* o) { o->precision_mode = "fp16"; }).message(),
            "precision_mode should be FP16, FP32 or FP64, not \"fp16\".");
  EXPECT_EQ(check([](ConvertOptions* o) { o->matmul_amp = 0; }).message(),
            "matmul_amp should be a number greater than 0 and at most 1 (the proportion of "
            "each tile's memory available to it), not 0.");
  EXPECT_EQ(check([](ConvertOptions* o) { o->conv_amp = 1.5; }).message(),
            "conv_amp should be a number greater than 0 and at most 1 (the proportion of "
            "each tile's memory available to it), not 1.5.");
  EXPECT_EQ(check([](ConvertOptions* o) { o->conv_partial_type = "double"; }).message(),
            "conv_partial_type should be \"float\" or \"half\", not \"double\".");
  EXPECT_EQ(check([](ConvertOptions* o) { o->excluded_nodes = {"a", "[b"}; }).message(),
            "excluded_nodes: \"[b\" is not a valid regular expression (missing ]: [b); write "
            "it in Python's re syntax, without backreferences or lookaround");
  EXPECT_EQ(check([](ConvertOptions* o) { o->manual_sharding = {{"a"}, {"b("}}; }).message(),
            "manual_sharding (IPU 1): \"b(\" is not a valid regular expression (missing ): "
            "b(); write it in Python's re syntax, without backreferences or lookaround");
  EXPECT_THAT(std::string(check([](ConvertOptions* o) {
                            o->precision_conversion_excluded_nodes = {"*"};
                          }).message()),
              HasSubstr("precision_conversion_excluded_nodes: \"*\" is not a valid"));
  EXPECT_THAT(std::string(check([](ConvertOptions* o) {
                            o->gelu_replacement = GeluReplacementOptions{{"("}, {}, {}};
                          }).message()),
              HasSubstr("gelu_replacement['nodes']: \"(\" is not a valid"));
  EXPECT_EQ(check([](ConvertOptions* o) { o->pipeline_cfg = 3; }).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ConvertOptionsTest, TheJsonOfTheOptionsReadsBackAsAConfigFile) {
  ConvertOptions o;
  o.num_ipus = 2;
  o.precision_mode = "FP16";
  o.manual_sharding = {{"^a"}, {"^b"}};
  o.excluded_nodes = {"x"};
  o.gelu_replacement = GeluReplacementOptions{{"g/"}, {"in"}, {"out"}};
  nlohmann::json j = ConvertOptionsToJson(o);
  EXPECT_EQ(j.size(), ConfigFileKeys().size());
  j["md5sum"] = "0123";
  ConvertOptions back;
  TF_ASSERT_OK(Apply(j.dump(), &back));
  EXPECT_EQ(ConvertOptionsToJson(back), ConvertOptionsToJson(o));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
