#include "tools/ipu_saved_model_cli/convert/convert.h"

#include <filesystem>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/saved_model/loader.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"
#include "tools/ipu_saved_model_cli/convert/md5sum.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::HasSubstr;
using saved_model_testing::kHalfPlusTwo;

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = saved_model_testing::FreshTestDir("convert");
    options_.dir = kHalfPlusTwo;
    options_.output_dir = dir_ + "/out";
  }
  std::string dir_;
  ConvertOptions options_;
};

TEST_F(ConvertTest, WritesTheModelAndItsParametersAndSaysWhere) {
  options_.batch_size = 3;
  std::ostringstream out;
  absl::StatusOr<ConvertResult> r = Convert(options_, out);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(out.str(), "SavedModel written to: " + options_.output_dir +
                           "/saved_model.pb\nConversion parameters written to: " +
                           options_.output_dir + "/conversion_params.json\n");
  EXPECT_EQ(r->saved_model_path, options_.output_dir + "/saved_model.pb");
  const std::string bytes = saved_model_testing::ReadBytes(r->saved_model_path);
  absl::StatusOr<std::string> md5 = Md5Hex(bytes);
  ASSERT_TRUE(md5.ok()) << md5.status();
  EXPECT_EQ(r->md5sum, *md5);

  nlohmann::json params = nlohmann::json::parse(saved_model_testing::ReadBytes(r->params_path),
                                                nullptr, false);
  ASSERT_TRUE(params.is_object());
  EXPECT_EQ(params["md5sum"], *md5);
  EXPECT_EQ(params["no_ipu_placement"], false);
  EXPECT_EQ(params["num_ipus"], 1);
  EXPECT_EQ(params["batch_size"], 3);
  EXPECT_TRUE(params["precision_mode"].is_null());
  // The parameters file can be given back as a config file.
  ConvertOptions again;
  TF_EXPECT_OK(ApplyConfigFile(r->params_path, &again));
  EXPECT_EQ(again.batch_size, 3);

  // One MetaGraphDef, the same tags, only serving_default, every node but
  // the input on the IPU, no variables left.
  absl::StatusOr<SavedModel> saved = ReadSavedModel(options_.output_dir);
  ASSERT_TRUE(saved.ok()) << saved.status();
  ASSERT_EQ(saved->meta_graphs_size(), 1);
  const MetaGraphDef& meta = saved->meta_graphs(0);
  EXPECT_THAT(meta.meta_info_def().tags(), ::testing::ElementsAre("serve"));
  ASSERT_EQ(meta.signature_def().size(), 1u);
  const SignatureDef& sig = meta.signature_def().at("serving_default");
  EXPECT_EQ(sig.inputs().at("x").name(), "x:0");
  EXPECT_EQ(sig.inputs().at("x").tensor_shape().dim(0).size(), 3);
  EXPECT_EQ(sig.outputs().at("y").name(), "y:0");
  for (const NodeDef& n : meta.graph_def().node()) {
    EXPECT_NE(n.op(), "VariableV2") << n.name();
    EXPECT_EQ(n.device(), n.op() == "Placeholder" ? "" : "/device:IPU:0") << n.name();
  }
  EXPECT_FALSE(std::filesystem::exists(options_.output_dir + "/variables"));
}

TEST_F(ConvertTest, ConvertingTwiceGivesTheSameFile) {
  std::ostringstream out;
  absl::StatusOr<ConvertResult> first = Convert(options_, out);
  ASSERT_TRUE(first.ok()) << first.status();
  options_.output_dir = dir_ + "/again";
  absl::StatusOr<ConvertResult> second = Convert(options_, out);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->md5sum, second->md5sum);
  EXPECT_EQ(saved_model_testing::ReadBytes(first->saved_model_path),
            saved_model_testing::ReadBytes(second->saved_model_path));
}

TEST_F(ConvertTest, WithoutIpuPlacementTheConvertedModelRunsOnTheHost) {
  options_.no_ipu_placement = true;
  options_.batch_size = 3;
  std::ostringstream out;
  absl::StatusOr<ConvertResult> r = Convert(options_, out);
  ASSERT_TRUE(r.ok()) << r.status();
  SavedModelBundle bundle;
  TF_ASSERT_OK(LoadSavedModel(SessionOptions(), RunOptions(), options_.output_dir, {"serve"},
                              &bundle));
  std::map<std::string, Tensor> outputs;
  TF_ASSERT_OK(RunSignature(bundle, "serving_default",
                            {{"x", Tensor::FromVector<float>({1, 2, 5}, TensorShape({3, 1}))}},
                            &outputs));
  EXPECT_EQ(outputs["y"].DebugString(), "[[2.5]\n [3. ]\n [4.5]]");
}

TEST_F(ConvertTest, ANonEmptyOutputDirectoryIsRefusedAndKept) {
  std::filesystem::create_directories(options_.output_dir);
  saved_model_testing::WriteBytes(options_.output_dir + "/keep", "data");
  std::ostringstream out;
  absl::Status s = Convert(options_, out).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(),
            "Export directory already exists, and isn't empty. Please choose a different export "
            "directory, or delete all the contents of the specified directory: " +
                options_.output_dir);
  EXPECT_EQ(saved_model_testing::ReadBytes(options_.output_dir + "/keep"), "data");
  EXPECT_EQ(out.str(), "");
}

TEST_F(ConvertTest, BadInputIsRefusedBeforeAnythingIsWritten) {
  std::ostringstream out;
  ConvertOptions o = options_;
  o.num_ipus = 0;
  EXPECT_EQ(Convert(o, out).status().message(), "num_ipus should be an integer, and greater than 0.");
  o = options_;
  o.dir = "";
  EXPECT_EQ(Convert(o, out).status().message(), "convert needs --dir: the SavedModel to convert");
  o = options_;
  o.output_dir = "";
  EXPECT_EQ(Convert(o, out).status().message(),
            "convert needs --output_dir: where to write the converted SavedModel");
  o = options_;
  o.dir = dir_ + "/missing";
  absl::Status s = Convert(o, out).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  o = options_;
  o.tag_set = "serve,gpu";
  s = Convert(o, out).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("MetaGraphDef associated with tag-set gpu,serve could not be found"));
  o = options_;
  o.pipeline_cfg = {{"converter", "load"}};
  EXPECT_EQ(Convert(o, out).status().code(), absl::StatusCode::kInvalidArgument);
  o = options_;
  o.excluded_nodes = {"^y$"};
  o.remove_excluded_nodes = true;
  s = Convert(o, out).status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("a complete CPU head is required."));
  EXPECT_FALSE(std::filesystem::exists(options_.output_dir));
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
