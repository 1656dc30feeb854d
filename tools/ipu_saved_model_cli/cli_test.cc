#include "tools/ipu_saved_model_cli/cli.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/ipu_saved_model_cli/cli_testing.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using saved_model_testing::kHalfPlusTwo;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(CliTest, ShowAndRunSucceedWithStatusZero) {
  CliOutcome o = Cli({"show", "--dir", kHalfPlusTwo});
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out, "The given SavedModel contains the following tag-sets:\nserve\n");
  o = Cli({"run", "--dir", kHalfPlusTwo, "--tag_set", "serve", "--signature_def",
           "serving_default", "--input_exprs", "x=[[1],[2],[5]]"});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "Result for output key y:\n[[2.5]\n [3. ]\n [4.5]]\n");
  EXPECT_EQ(o.err, "");
}

TEST(CliTest, Scan) {
  CliOutcome o = Cli({"scan", "--dir", kHalfPlusTwo});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "MetaGraph with tag set ['serve'] does not contain blacklisted ops.\n");
  o = Cli({"scan"});
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.err, HasSubstr("ipu_saved_model_cli scan: error: the following arguments are "
                               "required: --dir\n"));
}

TEST(CliTest, FailuresPrintTheMessageAndExitOne) {
  CliOutcome o = Cli({"run", "--dir", kHalfPlusTwo, "--tag_set", "serve", "--signature_def",
                   "serving_default"});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "At least one of --inputs, --input_exprs or --input_examples must be required\n");
}

TEST(CliTest, TensorFlowsDebuggerAndRemoteWorkersAreRefused) {
  const std::vector<std::string> run = {"run", "--dir", kHalfPlusTwo, "--tag_set", "serve",
                                        "--signature_def", "serving_default", "--input_exprs",
                                        "x=[[1]]"};
  std::vector<std::string> args = run;
  args.push_back("--tf_debug");
  CliOutcome o = Cli(args);
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "--tf_debug is not supported: TensorFlow's debugger (tfdbg) does not exist "
                   "here; run without it\n");
  args = run;
  args.push_back("--init_tpu");
  o = Cli(args);
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "--init_tpu is not supported: there are no TPUs here; use --init_ipu to "
                   "configure the simulated IPUs\n");
  args = run;
  args.insert(args.end(), {"--worker", "grpc://host:8470"});
  o = Cli(args);
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "--worker is not supported: the model runs in this process, not on the "
                   "TensorFlow server grpc://host:8470; run without --worker\n");
  EXPECT_EQ(o.out, "");
}

TEST(CliTest, CommandLineErrorsExitTwoWithUsage) {
  CliOutcome o = Cli({"show"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err,
            "usage: ipu_saved_model_cli show [-h] --dir DIR [--all] [--tag_set TAG_SET]\n"
            "                                [--signature_def SIGNATURE_DEF_KEY]\n"
            "ipu_saved_model_cli show: error: the following arguments are required: --dir\n");
  o = Cli({"run", "--dir", "d"});
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.err, HasSubstr("ipu_saved_model_cli run: error: the following arguments are "
                               "required: --tag_set, --signature_def\n"));
  o = Cli({"run", "--dir", "d", "--tag_set", "s", "--signature_def", "k", "--num_ipus", "x"});
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.err, HasSubstr("ipu_saved_model_cli run: error: argument --num_ipus: invalid int "
                               "value: 'x'\n"));
  o = Cli({"show", "--dir", "d", "--overwrite"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "usage: ipu_saved_model_cli [-h] [-v] {show,run,scan,convert} ...\n"
                   "ipu_saved_model_cli: error: unrecognized arguments: --overwrite\n");
  o = Cli({"tensorrt"});
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.err, HasSubstr("invalid choice: 'tensorrt' (choose from 'show', 'run', 'scan', "
                               "'convert')"));
  o = Cli({"convert", "--dir", "d", "--output_dir", "o", "--tag_set", "serve"});
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.err, HasSubstr("ipu_saved_model_cli convert: error: "));
  o = Cli({});
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.err, HasSubstr("ipu_saved_model_cli: error: too few arguments"));
}

TEST(CliTest, HelpPerSubcommand) {
  CliOutcome o = Cli({"run", "--help"});
  EXPECT_EQ(o.status, 0);
  EXPECT_THAT(o.out, StartsWith("usage: ipu_saved_model_cli run [-h] --dir DIR --tag_set TAG_SET\n"));
  EXPECT_THAT(o.out, HasSubstr("\n  --init_ipu            if set, configures the IPU system"));
  EXPECT_THAT(o.out, HasSubstr("\n  --num_ipus NUM_IPUS   the number of IPUs"));
  o = Cli({"show", "-h"});
  EXPECT_EQ(o.status, 0);
  EXPECT_THAT(o.out, HasSubstr("\nUsage examples:\nTo show all tag-sets in a SavedModel:\n"));
  // Help is printed as written, as argparse's RawTextHelpFormatter does.
  EXPECT_THAT(o.out, HasSubstr("  --all                 if set, will output all information in given "
                               "SavedModel\n"));
  o = Cli({"--help"});
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out, "usage: ipu_saved_model_cli [-h] [-v] {show,run,scan,convert} ...\n\n"
                   "ipu_saved_model_cli: Command-line interface for SavedModel\n\n"
                   "optional arguments:\n"
                   "  -h, --help            show this help message and exit\n"
                   "  -v, --version         show program's version number and exit\n\n"
                   "commands:\n"
                   "  valid commands\n\n"
                   "  {show,run,scan,convert}\n"
                   "                        additional help\n"
                   "    show                Show information about a SavedModel.\n"
                   "    run                 Run a SavedModel with given inputs.\n"
                   "    scan                Scan a SavedModel for blacklisted ops.\n"
                   "    convert             Convert the SavedModel with a specified converter.\n");
  o = Cli({"--version"});
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out, "0.1.0\n");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
