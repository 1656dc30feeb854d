// Bad input to ipu_saved_model_cli's `convert ... ipu`: its flags, its
// config file, and the SavedModel it converts. Each case asserts the code
// and the culprit's name, that nothing is written, and that a good
// conversion still works afterwards.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/saved_model/loader.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"
#include "tools/ipu_saved_model_cli/convert/convert.h"

namespace tensorflow_ipu {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using saved_model_cli::ApplyConfigFile;
using saved_model_cli::Convert;
using saved_model_cli::ConvertOptions;
using saved_model_cli::SetConvertFlag;
using saved_model_testing::FreshTestDir;
using saved_model_testing::kHalfPlusTwo;
using saved_model_testing::WriteBytes;

class BadConvertInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("bad_convert");
    options_.dir = kHalfPlusTwo;
    options_.output_dir = dir_ + "/out";
  }
  void TearDown() override {
    // Nothing was written by the failed conversion, and a good one works.
    EXPECT_FALSE(fs::exists(dir_ + "/out"));
    ConvertOptions good;
    good.dir = kHalfPlusTwo;
    good.output_dir = dir_ + "/good";
    good.no_ipu_placement = true;
    std::ostringstream out;
    absl::StatusOr<saved_model_cli::ConvertResult> r = Convert(good, out);
    ASSERT_TRUE(r.ok()) << r.status();
    SavedModelBundle bundle;
    absl::Status s = LoadSavedModel(SessionOptions(), RunOptions(), good.output_dir, {"serve"}, &bundle);
    ASSERT_TRUE(s.ok()) << s;
    std::map<std::string, Tensor> outputs;
    s = RunSignature(bundle, "serving_default",
                     {{"x", Tensor::FromVector<float>({1}, TensorShape({1, 1}))}}, &outputs);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(outputs["y"].data<float>()[0], 2.5f);
  }
  std::string Config(const std::string& text) {
    const std::string path = dir_ + "/config.json";
    WriteBytes(path, text);
    return path;
  }
  absl::Status ConvertNow() {
    std::ostringstream out;
    absl::Status s = Convert(options_, out).status();
    EXPECT_EQ(out.str(), "");
    return s;
  }
  std::string dir_;
  ConvertOptions options_;
};

TEST_F(BadConvertInputTest, AnEmptyConfigFileIsNotJson) {
  absl::Status s = ApplyConfigFile(Config(""), &options_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("config_file " + dir_ + "/config.json is not valid JSON"));
}

TEST_F(BadConvertInputTest, AMissingConfigFileIsNotReadable) {
  absl::Status s = ApplyConfigFile(dir_ + "/none.json", &options_);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "config_file " + dir_ + "/none.json is not readable.");
}

TEST_F(BadConvertInputTest, ANumberNoDoubleHoldsIsRefused) {
  absl::Status s = ApplyConfigFile(Config("{\"matmul_amp\": 1e400}"), &options_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("config_file " + dir_ + "/config.json"));
  EXPECT_EQ(options_.matmul_amp, 0.6);
}

TEST_F(BadConvertInputTest, AHugeIntegerInTheConfigIsRefused) {
  absl::Status s =
      ApplyConfigFile(Config("{\"batch_size\": 99999999999999999999}"), &options_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("batch_size"));
  EXPECT_EQ(options_.batch_size, 1);
}

TEST_F(BadConvertInputTest, AConfigValueOfTheWrongTypeIsNamed) {
  absl::Status s = ApplyConfigFile(Config("{\"merge_subgraphs\": \"yes\"}"), &options_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "config_file " + dir_ +
                             "/config.json: \"merge_subgraphs\" should be a boolean (true or "
                             "false), not a string.");
}

TEST_F(BadConvertInputTest, AHugeNumIpusFlagIsRefused) {
  absl::Status s = SetConvertFlag("num_ipus", {"99999999999999999999"}, &options_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "--num_ipus should be an integer, not '99999999999999999999'");
  EXPECT_EQ(options_.num_ipus, 1);
}

TEST_F(BadConvertInputTest, ManualShardingThatIsNoListOfStringListsIsRefused) {
  absl::Status s = SetConvertFlag("manual_sharding", {"[['a'], [open('x')]]"}, &options_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("expected a list or a string at position 9"));
  EXPECT_TRUE(options_.manual_sharding.empty());
}

TEST_F(BadConvertInputTest, ManualShardingForMoreIpusThanGivenIsRefused) {
  options_.manual_sharding = {{"a"}, {"b"}, {"c"}};
  options_.num_ipus = int64_t{1} << 40;
  absl::Status s = ConvertNow();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "The length of manual_sharding (3) should be equal to num_ipus (1099511627776).");
}

TEST_F(BadConvertInputTest, ABatchSizeTooLargeForAnyTensorIsRefusedNamingTheInput) {
  options_.batch_size = std::numeric_limits<int64_t>::max();
  absl::Status s = ConvertNow();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("shape [9223372036854775807,1] has more than 2^38 elements"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("for 'x' (op: 'Placeholder')"));
}

TEST_F(BadConvertInputTest, ADamagedSavedModelIsNamed) {
  fs::copy(kHalfPlusTwo, dir_ + "/model", fs::copy_options::recursive);
  fs::permissions(dir_ + "/model/saved_model.pb", fs::perms::owner_write, fs::perm_options::add);
  WriteBytes(dir_ + "/model/saved_model.pb", "not a protobuf");
  options_.dir = dir_ + "/model";
  absl::Status s = ConvertNow();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(s.message()), HasSubstr("saved_model.pb"));
}

TEST_F(BadConvertInputTest, AnOutputDirectoryThatIsAFileIsRefused) {
  options_.output_dir = dir_ + "/file";
  WriteBytes(options_.output_dir, "x");
  absl::Status s = ConvertNow();
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "--output_dir " + dir_ +
                             "/file exists and is not a directory; choose another output "
                             "directory");
}

TEST_F(BadConvertInputTest, AnEmbeddedRuntimeConfigWithoutItsKeysIsRefusedAndWritesNothing) {
  absl::Status s = SetConvertFlag("int64_to_int32_conversion", {}, &options_);
  ASSERT_TRUE(s.ok()) << s;
  s = SetConvertFlag("embedded_runtime_save_config",
                     {"{\"embedded_runtime_exec_cachedir\": \"" + dir_ + "/cache\"}"}, &options_);
  ASSERT_TRUE(s.ok()) << s;
  s = ConvertNow();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Key 'runtime_api_timeout_us' missing from `embedded_runtime_save_config`."));
  EXPECT_FALSE(std::filesystem::exists(options_.output_dir));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/cache"));
}

TEST_F(BadConvertInputTest, AnEmbeddedRuntimeConfigOfTheWrongTypesIsRefusedNamingTheKey) {
  ASSERT_EQ(absl::OkStatus(), SetConvertFlag("int64_to_int32_conversion", {}, &options_));
  for (const char* config : {
           R"({"embedded_runtime_exec_cachedir": 7, "runtime_api_timeout_us": 5000})",
           R"({"embedded_runtime_exec_cachedir": "c", "runtime_api_timeout_us": "soon"})",
           R"({"embedded_runtime_exec_cachedir": "c", "runtime_api_timeout_us": 0})",
           R"({"embedded_runtime_exec_cachedir": "c", "runtime_api_timeout_us": 5, "x": 1})",
       }) {
    SCOPED_TRACE(config);
    ASSERT_EQ(absl::OkStatus(), SetConvertFlag("embedded_runtime_save_config", {config}, &options_));
    absl::Status s = ConvertNow();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("embedded_runtime_save_config"));
    EXPECT_FALSE(std::filesystem::exists(options_.output_dir));
  }
}

}  // namespace
}  // namespace tensorflow_ipu
