#include "tools/ipu_saved_model_cli/run.h"

#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/saved_model/proto/saved_model.pb.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"
#include "tools/ipu_saved_model_cli/npy.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using saved_model_testing::FreshTestDir;
using saved_model_testing::kHalfPlusTwo;
using saved_model_testing::ReadBytes;
using ::testing::HasSubstr;

class RunTest : public ::testing::Test {
 protected:
  RunTest() {
    o_.dir = kHalfPlusTwo;
    o_.tag_set = "serve";
    o_.signature_def = "serving_default";
  }
  // Runs o_; the status, with stdout and stderr in out_ and err_.
  absl::Status RunIt() {
    out_.str("");
    err_.str("");
    return saved_model_cli::Run(o_, out_, err_);
  }
  RunCommandOptions o_;
  absl::Status s_;
  std::ostringstream out_, err_;
};

constexpr char kHalfPlusTwoResult[] = "Result for output key y:\n[[2.5]\n [3. ]\n [4.5]]\n";

TEST_F(RunTest, InputExprs) {
  o_.input_exprs = "x=[[1],[2],[5]]";
  absl::Status s = RunIt();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out_.str(), kHalfPlusTwoResult);
  EXPECT_EQ(err_.str(), "");
  // The float64 of a literal with a fraction is fed as the input's float.
  o_.input_exprs = "x=np.array([[0.5]])";
  s = RunIt();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out_.str(), "Result for output key y:\n[[2.25]]\n");
  // Empty entries are skipped, later ones win.
  o_.input_exprs = ";x=np.ones((1, 1));;x=np.zeros((2,1), dtype=np.float32);";
  s = RunIt();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out_.str(), "Result for output key y:\n[[2.]\n [2.]]\n");
}

TEST_F(RunTest, InputsFromNpyFilesAndOutputsToNpyFiles) {
  const std::string dir = FreshTestDir("run");
  // A float64 file, as numpy.save(np.array([[1.], [2.], [5.]])) writes one.
  s_ = WriteNpyFile(dir + "/x.npy", Tensor::FromVector<double>({1, 2, 5}, TensorShape({3, 1})));
  ASSERT_TRUE(s_.ok()) << s_;
  o_.inputs = "x=" + dir + "/x.npy";
  o_.outdir = dir + "/out";
  absl::Status s = RunIt();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out_.str(), std::string(kHalfPlusTwoResult) + "Output y is saved to " + dir +
                            "/out/y.npy\n");
  absl::StatusOr<Tensor> y = ReadNpyFile(dir + "/out/y.npy");
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->dtype(), DT_FLOAT);
  EXPECT_EQ(y->DebugString(), "[[2.5]\n [3. ]\n [4.5]]");

  // Again: the file exists, so nothing runs and nothing is written.
  std::filesystem::resize_file(dir + "/out/y.npy", 3);
  s = RunIt();
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "Output file " + dir +
                             "/out/y.npy already exists. Add \"--overwrite\" to overwrite the "
                             "existing output files.");
  EXPECT_EQ(out_.str(), "");
  EXPECT_EQ(ReadBytes(dir + "/out/y.npy").size(), 3u);
  o_.overwrite = true;
  s = RunIt();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(ReadNpyFile(dir + "/out/y.npy")->DebugString(), "[[2.5]\n [3. ]\n [4.5]]");

  // A [name] on a .npy file is ignored with the original's warning; an
  // expression for the same key wins, with a warning.
  o_.inputs = "x=" + dir + "/x.npy[arr_0]";
  o_.input_exprs = "x=[[0]]";
  o_.outdir.reset();
  s = RunIt();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out_.str(), "Result for output key y:\n[[2.]]\n");
  EXPECT_EQ(err_.str(), "warning: Input file " + dir +
                            "/x.npy contains a single ndarray. Name key \"arr_0\" ignored.\n"
                            "warning: input_key x has been specified with both --inputs and "
                            "--input_exprs options. Value in --input_exprs will be used.\n");
}

TEST_F(RunTest, BadOptionsNameTheCulprit) {
  struct Case {
    std::string inputs, exprs, examples;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "", "", absl::StatusCode::kInvalidArgument,
       "At least one of --inputs, --input_exprs or --input_examples must be required"},
      {"x", "", "", absl::StatusCode::kInvalidArgument,
       "--inputs \"x\" format is incorrect. Please follow \"<input_key>=<filename>\", or "
       "\"<input_key>=<filename>[<variable_name>]\""},
      {"=f.npy", "", "", absl::StatusCode::kInvalidArgument, "--inputs \"=f.npy\" format"},
      {"x=f.npy[]", "", "", absl::StatusCode::kInvalidArgument, "--inputs \"x=f.npy[]\" format"},
      {"x=f[a]b", "", "", absl::StatusCode::kInvalidArgument, "--inputs \"x=f[a]b\" format"},
      {"x=/no/such.npy", "", "", absl::StatusCode::kNotFound,
       "--inputs x: cannot open the input file /no/such.npy"},
      {"", "x", "", absl::StatusCode::kInvalidArgument,
       "--input_exprs \"x\" format is incorrect. Please follow "
       "\"<input_key>=<python expression>\""},
      {"", "x=[[1],[2]", "", absl::StatusCode::kInvalidArgument,
       "--input_exprs \"x=[[1],[2]\": at position 8: the expression ends inside a list"},
      {"", "", "x=[{'a':[1]}]", absl::StatusCode::kUnimplemented,
       "--input_examples is not supported: the ParseExample op that reads tf.Example protos "
       "has no kernel in this build; feed the parsed features with --inputs or --input_exprs"},
      {"", "z=[[1]]", "", absl::StatusCode::kInvalidArgument,
       "\"z\" is not a valid input key. Please choose from \"x\", or use --show option."},
      {"", "x=[[1e40]]", "", absl::StatusCode::kOk, ""},
      {"", "x=[1, 2]", "", absl::StatusCode::kInvalidArgument,
       "input 'x' must have shape [?,1], got [2]"},
  };
  for (const Case& c : cases) {
    o_.inputs = c.inputs;
    o_.input_exprs = c.exprs;
    o_.input_examples = c.examples;
    absl::Status s = RunIt();
    EXPECT_EQ(s.code(), c.code) << s;
    EXPECT_THAT(s.message(), HasSubstr(c.message));
  }
  o_.inputs = o_.input_examples = "";
  o_.input_exprs = "x=[[1]]";
  o_.tag_set = "serve,tpu";
  absl::Status s = RunIt();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("MetaGraphDef associated with tag-set serve,tpu could not "
                                     "be found in SavedModel"));
  o_.tag_set = "serve";
  o_.signature_def = "predict";
  s = RunIt();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("No SignatureDef with key 'predict' found in MetaGraphDef."));
}

TEST_F(RunTest, AnOutputNpyCannotHoldIsRefusedBeforeRunning) {
  // A saved_model.pb alone: the check comes before the graph is loaded.
  const std::string dir = FreshTestDir("run_string_output");
  SavedModel sm;
  MetaGraphDef* meta = sm.add_meta_graphs();
  meta->mutable_meta_info_def()->add_tags("serve");
  SignatureDef& sig = (*meta->mutable_signature_def())["serving_default"];
  TensorInfo& x = (*sig.mutable_inputs())["x"];
  x.set_name("x:0");
  x.set_dtype(DT_FLOAT);
  TensorInfo& label = (*sig.mutable_outputs())["label"];
  label.set_name("label:0");
  label.set_dtype(DT_STRING);
  saved_model_testing::WriteBytes(dir + "/saved_model.pb", sm.SerializeAsString());
  o_.dir = dir;
  o_.input_exprs = "x=1.5";
  o_.outdir = dir + "/out";
  absl::Status s = RunIt();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(),
            "output 'label' is string, which cannot be saved as .npy; run without --outdir to "
            "print it");
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));

  // An output key from the file may not lead the write out of --outdir.
  TensorInfo& escape = (*sig.mutable_outputs())["../escape"];
  escape.set_name("label:0");
  escape.set_dtype(DT_FLOAT);
  sig.mutable_outputs()->erase("label");
  saved_model_testing::WriteBytes(dir + "/saved_model.pb", sm.SerializeAsString());
  s = RunIt();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "output key '../escape' cannot name a file in --outdir (it is empty, '.', '..' or "
            "has a '/'); run without --outdir to print it");
  EXPECT_FALSE(std::filesystem::exists(dir + "/escape.npy"));
}

TEST_F(RunTest, IpuFlagsAreCheckedOnlyWithInitIpu) {
  o_.input_exprs = "x=[[1]]";
  o_.matmul_amp = "lots";
  o_.num_ipus = 0;
  absl::Status s = RunIt();
  ASSERT_TRUE(s.ok()) << s;  // ignored, as the original ignores them
  o_.init_ipu = true;
  s = RunIt();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "--matmul_amp is the proportion of memory for temporary values: a "
                         "number above 0.0 and at most 1.0, got 'lots'");
  o_.matmul_amp = "0";
  EXPECT_THAT(RunIt().message(), HasSubstr("--matmul_amp is the proportion"));
  o_.matmul_amp = "0.3";
  o_.conv_amp = "1.5";
  EXPECT_THAT(RunIt().message(), HasSubstr("--conv_amp is the proportion"));
  o_.conv_amp = "0.6";
  o_.conv_partial_type = "double";
  EXPECT_EQ(RunIt().message(), "--conv_partial_type must be \"float\" or \"half\", got 'double'");
  o_.conv_partial_type = "half";
  s = RunIt();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("--conv_partial_type half is not simulated"));
  o_.conv_partial_type = "float";
  EXPECT_EQ(RunIt().message(),
            "--num_ipus must be a number of IPUs of at least 1 (1, 2, 4, ...), got 0");
  o_.num_ipus = 1;
  s = RunIt();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out_.str(), "Initializing IPU System ...\nResult for output key y:\n[[2.5]]\n");
  // The flags reach the configuration, each to its own kind of operation.
  std::optional<ipu::config::IPUConfig> applied = ipu::IpuSystem::Get().configuration();
  ASSERT_TRUE(applied.has_value());
  EXPECT_EQ(applied->matmuls.poplar_options,
            (std::map<std::string, std::string>{{"availableMemoryProportion", "0.3"},
                                                {"partialsType", "float"}}));
  EXPECT_EQ(applied->convolutions.poplar_options,
            (std::map<std::string, std::string>{{"availableMemoryProportion", "0.6"},
                                                {"partialsType", "float"}}));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
