// ipu_saved_model_cli end to end: the SavedModel TensorFlow wrote
// (half_plus_two) and the Fashion-MNIST MLP exported by
// examples/saved_model, shown and run through the tool's library entry
// point and its binary, and a model frozen for the IPU run with and
// without --init_ipu.
#include <sys/wait.h>

#include <cstdlib>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "examples/fashion_mnist/fashion_mnist_data.h"
#include "examples/saved_model/mlp_export.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/saved_model/builder.h"
#include "tensorflow_ipu/saved_model/freeze.h"
#include "tensorflow_ipu/saved_model/loader.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"
#include "tests/ipu/ipu_test_util.h"
#include "tools/ipu_saved_model_cli/cli_testing.h"
#include "tools/ipu_saved_model_cli/npy.h"

namespace tensorflow_ipu {
namespace {

using saved_model_testing::FreshTestDir;
using saved_model_testing::kHalfPlusTwo;
using saved_model_testing::ReadBytes;
using ::testing::HasSubstr;
using saved_model_cli::Cli;
using saved_model_cli::CliOutcome;

// The tool's binary, run by the shell with `args`.
CliOutcome Binary(const std::string& args) {
  const std::string dir = FreshTestDir("cli_binary");
  const std::string command =
      absl::StrCat("tools/ipu_saved_model_cli/ipu_saved_model_cli ", args, " >", dir,
                   "/out 2>", dir, "/err");
  const int raw = std::system(command.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, ReadBytes(dir + "/out"), ReadBytes(dir + "/err")};
}

constexpr char kHalfPlusTwoRun[] = "Result for output key y:\n[[2.5]\n [3. ]\n [4.5]]\n";

TEST(SavedModelCliTest, HalfPlusTwoThroughTheLibrary) {
  CliOutcome o = Cli({"run", "--dir", kHalfPlusTwo, "--tag_set", "serve", "--signature_def",
                   "serving_default", "--input_exprs", "x=[[1],[2],[5]]"});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, kHalfPlusTwoRun);
  o = Cli({"show", "--dir", kHalfPlusTwo, "--tag_set", "serve", "--signature_def",
           "regress_x2_to_y3"});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out,
            "The given SavedModel SignatureDef contains the following input(s):\n"
            "  inputs['inputs'] tensor_info:\n"
            "      dtype: DT_FLOAT\n"
            "      shape: (-1, 1)\n"
            "      name: x2:0\n"
            "The given SavedModel SignatureDef contains the following output(s):\n"
            "  outputs['outputs'] tensor_info:\n"
            "      dtype: DT_FLOAT\n"
            "      shape: (-1, 1)\n"
            "      name: y3:0\n"
            "Method name is: tensorflow/serving/regress\n");
  // regress_x2_to_y3 computes y3 = a * x2 + c with a = 0.5, c = 3.
  o = Cli({"run", "--dir", kHalfPlusTwo, "--tag_set", "serve", "--signature_def",
           "regress_x2_to_y3", "--input_exprs", "inputs=np.array([[2], [4]], dtype=np.float32)"});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "Result for output key outputs:\n[[4.]\n [5.]]\n");
}

TEST(SavedModelCliTest, HalfPlusTwoThroughTheBinary) {
  const std::string dir = FreshTestDir("cli_binary_out");
  CliOutcome o = Binary(absl::StrCat("run --dir ", kHalfPlusTwo,
                                  " --tag_set serve --signature_def serving_default "
                                  "--input_exprs 'x=[[1],[2],[5]]' --outdir ",
                                  dir));
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, absl::StrCat(kHalfPlusTwoRun, "Output y is saved to ", dir, "/y.npy\n"));
  absl::StatusOr<Tensor> y = saved_model_cli::ReadNpyFile(dir + "/y.npy");
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->DebugString(), "[[2.5]\n [3. ]\n [4.5]]");

  o = Binary(absl::StrCat("show --dir ", kHalfPlusTwo));
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "The given SavedModel contains the following tag-sets:\nserve\n");
  // A failing command exits 1 with its message; a bad command line 2.
  o = Binary(absl::StrCat("show --dir ", kHalfPlusTwo, " --tag_set gpu"));
  EXPECT_EQ(o.status, 1);
  EXPECT_THAT(o.err, HasSubstr("MetaGraphDef associated with tag-set gpu could not be found"));
  o = Binary("run --dir x");
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.err, HasSubstr("ipu_saved_model_cli run: error: the following arguments are "
                               "required: --tag_set, --signature_def\n"));
}

TEST(SavedModelCliTest, TheExportedFashionMnistMlp) {
  absl::StatusOr<examples::FashionMnist> data =
      examples::LoadFashionMnist(examples::kFashionMnistDir, 640, 200);
  ASSERT_TRUE(data.ok()) << data.status();
  const std::string model = FreshTestDir("mlp") + "/1";
  examples::MlpExportOptions options;
  options.steps = 20;
  absl::StatusOr<examples::MlpExportReport> report =
      examples::ExportFashionMnistMlp(*data, model, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->test_accuracy, 0.3);  // well above chance (0.1) after 20 steps

  CliOutcome o = Cli({"show", "--dir", model, "--all"});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out,
            "\nMetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:\n"
            "\nsignature_def['serving_default']:\n"
            "  The given SavedModel SignatureDef contains the following input(s):\n"
            "    inputs['image'] tensor_info:\n"
            "        dtype: DT_FLOAT\n"
            "        shape: (-1, 784)\n"
            "        name: image:0\n"
            "  The given SavedModel SignatureDef contains the following output(s):\n"
            "    outputs['probabilities'] tensor_info:\n"
            "        dtype: DT_FLOAT\n"
            "        shape: (-1, 10)\n"
            "        name: probabilities:0\n"
            "  Method name is: tensorflow/serving/predict\n");

  // Three test images from a .npy file: the printed and the saved
  // probabilities are what the loaded model computes for them.
  const std::string dir = FreshTestDir("mlp_io");
  absl::StatusOr<Tensor> images = Tensor::Create(DT_FLOAT, TensorShape({3, 784}));
  ASSERT_TRUE(images.ok()) << images.status();
  std::copy(data->test.images.data<float>(), data->test.images.data<float>() + 3 * 784,
            images->data<float>());
  absl::Status s = saved_model_cli::WriteNpyFile(dir + "/images.npy", *images);
  ASSERT_TRUE(s.ok()) << s;
  SavedModelBundle bundle;
  s = LoadSavedModel(SessionOptions(), RunOptions(), model, {"serve"}, &bundle);
  ASSERT_TRUE(s.ok()) << s;
  std::map<std::string, Tensor> expected;
  s = RunSignature(bundle, "serving_default", {{"image", *images}}, &expected);
  ASSERT_TRUE(s.ok()) << s;
  o = Cli({"run", "--dir", model, "--tag_set", "serve", "--signature_def", "serving_default",
           "--inputs", "image=" + dir + "/images.npy", "--outdir", dir + "/out"});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, absl::StrCat("Result for output key probabilities:\n",
                                expected["probabilities"].DebugString(),
                                "\nOutput probabilities is saved to ", dir,
                                "/out/probabilities.npy\n"));
  absl::StatusOr<Tensor> saved = saved_model_cli::ReadNpyFile(dir + "/out/probabilities.npy");
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_TRUE(saved->BitwiseEquals(expected["probabilities"]));
  for (int r = 0; r < 3; ++r) {
    float sum = 0;
    for (int c = 0; c < 10; ++c) sum += saved->data<float>()[r * 10 + c];
    EXPECT_NEAR(sum, 1.f, 1e-5) << "row " << r;
  }
}

class SavedModelCliIpuTest : public testing::IpuTest {};

TEST_F(SavedModelCliIpuTest, AModelFrozenForTheIpuNeedsInitIpu) {
  // half_plus_two frozen onto /device:IPU:0 with a batch of 3, saved again.
  Configure(1);
  SavedModelBundle frozen;
  FreezeOptions freeze;
  freeze.batch_size = 3;
  absl::Status s = LoadSavedModelForIpu(SessionOptions(), RunOptions(), kHalfPlusTwo, {"serve"},
                                        freeze, &frozen);
  ASSERT_TRUE(s.ok()) << s;
  const std::string model = FreshTestDir("ipu_model") + "/1";
  SavedModelBuilder builder(model);
  s = builder.AddMetaGraphAndVariables(frozen.session.get(), frozen.meta_graph_def.graph_def(),
                                       {"serve"}, {{"serving_default",
                                                    frozen.meta_graph_def.signature_def().at(
                                                        "serving_default")}});
  ASSERT_TRUE(s.ok()) << s;
  s = builder.Save();
  ASSERT_TRUE(s.ok()) << s;
  ipu::IpuSystem::Get().Reset();

  const std::vector<std::string> run = {"run", "--dir", model, "--tag_set", "serve",
                                        "--signature_def", "serving_default",
                                        "--input_exprs", "x=[[1],[2],[5]]"};
  // Without --init_ipu nothing configures the IPUs its nodes need.
  CliOutcome o = Cli(run);
  EXPECT_EQ(o.status, 1);
  EXPECT_THAT(o.err, HasSubstr("no IPU system is configured"));
  std::vector<std::string> with_ipu = run;
  with_ipu.insert(with_ipu.end(), {"--init_ipu", "--num_ipus", "1"});
  o = Cli(with_ipu);
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, absl::StrCat("Initializing IPU System ...\n", kHalfPlusTwoRun));
}

}  // namespace
}  // namespace tensorflow_ipu
