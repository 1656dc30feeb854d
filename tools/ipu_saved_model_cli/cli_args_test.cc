#include "tools/ipu_saved_model_cli/cli_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A tool shaped like ipu_saved_model_cli: show, run, and convert ... ipu.
class CliArgsTest : public ::testing::Test {
 protected:
  CliArgsTest() : cli_("tool", "") {
    ArgParser* show = cli_.AddSubcommand("show", "Show a model.", "Shows a model.\nExamples: ...");
    show->AddOption({"dir", OptionKind::kString, std::nullopt, true,
                     "directory containing the SavedModel to inspect"});
    show->AddOption({"all", OptionKind::kBool, std::nullopt, false, "show everything"});
    show->AddOption({"tag_set", OptionKind::kString, std::nullopt, false, "tags"});
    show->AddOption({"signature_def", OptionKind::kString, std::nullopt, false, "key", "SIGNATURE_DEF_KEY"});
    ArgParser* run = cli_.AddSubcommand("run", "Run a model.", "");
    run->AddOption({"dir", OptionKind::kString, std::nullopt, true, "d"});
    run->AddOption({"tag_set", OptionKind::kString, std::nullopt, true, "t"});
    run->AddOption({"num_ipus", OptionKind::kInt, "1", false, "n"});
    run->AddOption({"matmul_amp", OptionKind::kFloat, "0.6", false, "a"});
    ArgParser* convert = cli_.AddSubcommand("convert", "Convert a model.", "");
    convert->AddOption({"dir", OptionKind::kString, std::nullopt, true, "d"});
    ArgParser* ipu = convert->AddSubcommand("ipu", "for the IPU", "");
    ipu->AddOption({"excluded_nodes", OptionKind::kStringList, std::nullopt, false, "nodes"});
    ipu->AddOption({"num_ipus", OptionKind::kInt, "1", false, "n"});
    ipu->AddOption({"precision_excluded", OptionKind::kNonEmptyStringList, std::nullopt, false,
                    "nodes", "NODES"});
  }
  // The parse's error message, or "" when it succeeds.
  std::string Error(const std::vector<std::string>& args) {
    absl::StatusOr<ParsedArgs> a = cli_.Parse(args);
    if (a.ok()) return "";
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(a.status().message());
  }
  ArgParser cli_;
};

TEST_F(CliArgsTest, ParsesValuesFlagsAndDefaults) {
  absl::StatusOr<ParsedArgs> a = cli_.Parse({"show", "--dir", "/m", "--all", "--tag_set=serve"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->subcommands(), ElementsAre("show"));
  EXPECT_EQ(a->GetString("dir"), "/m");
  EXPECT_TRUE(a->GetBool("all"));
  EXPECT_EQ(a->GetString("tag_set"), "serve");
  EXPECT_EQ(a->GetString("signature_def"), std::nullopt);
  EXPECT_FALSE(a->IsSet("signature_def"));
  EXPECT_TRUE(a->IsSet("dir"));
  EXPECT_TRUE(a->help().empty());

  a = cli_.Parse({"run", "--dir", "d", "--tag_set", "serve", "--num_ipus", "-4"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->GetInt("num_ipus"), -4);
  EXPECT_EQ(a->GetFloat("matmul_amp"), 0.6);
  EXPECT_FALSE(a->IsSet("matmul_amp"));
  // The last of repeated options wins; prefixes of long flags are taken.
  a = cli_.Parse({"run", "--dir", "a", "--dir=b", "--tag", "serve", "--matmul=0.25"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->GetString("dir"), "b");
  EXPECT_EQ(a->GetString("tag_set"), "serve");
  EXPECT_EQ(a->GetFloat("matmul_amp"), 0.25);
}

TEST_F(CliArgsTest, NestedSubcommandsAndLists) {
  absl::StatusOr<ParsedArgs> a =
      cli_.Parse({"convert", "--dir", "d", "ipu", "--excluded_nodes", "a", "^b$", "--num_ipus", "2"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->subcommands(), ElementsAre("convert", "ipu"));
  EXPECT_THAT(a->GetStringList("excluded_nodes"), ElementsAre("a", "^b$"));
  EXPECT_EQ(a->GetInt("num_ipus"), 2);
  a = cli_.Parse({"convert", "--dir", "d", "ipu", "--excluded_nodes"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->GetStringList("excluded_nodes").empty());
  EXPECT_TRUE(a->IsSet("excluded_nodes"));
  a = cli_.Parse({"convert", "--dir", "d", "ipu", "--excluded_nodes=x"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->GetStringList("excluded_nodes"), ElementsAre("x"));
}

TEST_F(CliArgsTest, ListsOfAtLeastOneValue) {
  absl::StatusOr<ParsedArgs> a =
      cli_.Parse({"convert", "--dir", "d", "ipu", "--precision_excluded", "a", "b"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->GetStringList("precision_excluded"), ElementsAre("a", "b"));
  EXPECT_EQ(Error({"convert", "--dir", "d", "ipu", "--precision_excluded", "--num_ipus", "2"}),
            "argument --precision_excluded: expected at least one argument");
  EXPECT_EQ(Error({"convert", "--dir", "d", "ipu", "--precision_excluded"}),
            "argument --precision_excluded: expected at least one argument");
  a = cli_.Parse({"convert", "ipu", "--help"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->help(), HasSubstr("  --precision_excluded NODES [NODES ...]\n"));
}

TEST_F(CliArgsTest, ErrorsUseArgparsesWords) {
  EXPECT_EQ(Error({"run"}), "the following arguments are required: --dir, --tag_set");
  EXPECT_EQ(Error({"run", "--dir", "d"}), "the following arguments are required: --tag_set");
  EXPECT_EQ(Error({"show", "--dir", "d", "--bogus", "x"}), "unrecognized arguments: --bogus x");
  EXPECT_EQ(Error({"run", "--dir", "d", "--tag_set", "s", "--num_ipus", "x"}),
            "argument --num_ipus: invalid int value: 'x'");
  EXPECT_EQ(Error({"run", "--dir", "d", "--tag_set", "s", "--num_ipus", "99999999999999999999"}),
            "argument --num_ipus: invalid int value: '99999999999999999999'");
  EXPECT_EQ(Error({"run", "--dir", "d", "--tag_set", "s", "--matmul_amp=lots"}),
            "argument --matmul_amp: invalid float value: 'lots'");
  EXPECT_EQ(Error({"show", "--dir"}), "argument --dir: expected one argument");
  EXPECT_EQ(Error({"show", "--dir", "--all"}), "argument --dir: expected one argument");
  EXPECT_EQ(Error({"show", "--dir", "d", "--all=yes"}), "argument --all: ignored explicit argument 'yes'");
  EXPECT_EQ(Error({"scan"}), "argument {show,run,convert}: invalid choice: 'scan' (choose from "
                             "'show', 'run', 'convert')");
  EXPECT_EQ(Error({}), "too few arguments");
  EXPECT_EQ(Error({"convert", "--dir", "d"}), "too few arguments");
  // A prefix with one match is that option.
  EXPECT_EQ(Error({"show", "--dir", "d", "--s", "x", "--t", "y"}), "");
  EXPECT_EQ(Error({"show", "--d=x", "--"}), "unrecognized arguments: --");
}

TEST_F(CliArgsTest, AmbiguousPrefixes) {
  ArgParser p("p", "");
  p.AddOption({"matmul_amp", OptionKind::kFloat, "0.6", false, ""});
  p.AddOption({"matmul_partial_type", OptionKind::kString, "float", false, ""});
  absl::StatusOr<ParsedArgs> a = p.Parse({"--matmul", "1"});
  EXPECT_EQ(a.status().message(),
            "ambiguous option: --matmul could match --matmul_amp, --matmul_partial_type");
}

TEST_F(CliArgsTest, ErrorTextIsTheSubcommandsUsageAndTheMessage) {
  absl::StatusOr<ParsedArgs> a = cli_.Parse({"show"});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(cli_.ErrorText(a.status()),
            "usage: tool show [-h] --dir DIR [--all] [--tag_set TAG_SET]\n"
            "                 [--signature_def SIGNATURE_DEF_KEY]\n"
            "tool show: error: the following arguments are required: --dir\n");
  // Unrecognized arguments are the top-level parser's, as in argparse.
  a = cli_.Parse({"show", "--dir", "d", "x"});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(cli_.ErrorText(a.status()),
            "usage: tool [-h] {show,run,convert} ...\ntool: error: unrecognized arguments: x\n");
}

TEST_F(CliArgsTest, HelpPerSubcommand) {
  absl::StatusOr<ParsedArgs> a = cli_.Parse({"show", "--help", "--bogus"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->help(),
            "usage: tool show [-h] --dir DIR [--all] [--tag_set TAG_SET]\n"
            "                 [--signature_def SIGNATURE_DEF_KEY]\n"
            "\n"
            "Shows a model.\n"
            "Examples: ...\n"
            "\n"
            "optional arguments:\n"
            "  -h, --help            show this help message and exit\n"
            "  --dir DIR             directory containing the SavedModel to inspect\n"
            "  --all                 show everything\n"
            "  --tag_set TAG_SET     tags\n"
            "  --signature_def SIGNATURE_DEF_KEY\n"
            "                        key\n");
  a = cli_.Parse({"-h"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->help(),
            "usage: tool [-h] {show,run,convert} ...\n"
            "\n"
            "positional arguments:\n"
            "  {show,run,convert}\n"
            "    show              Show a model.\n"
            "    run               Run a model.\n"
            "    convert           Convert a model.\n"
            "\n"
            "optional arguments:\n"
            "  -h, --help          show this help message and exit\n");
  a = cli_.Parse({"convert", "ipu", "-h"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->help(), ::testing::StartsWith(
                             "usage: tool convert ipu [-h] [--excluded_nodes [EXCLUDED_NODES ...]]\n"));
}

TEST_F(CliArgsTest, RawHelpVersionAndASubcommandGroup) {
  ArgParser p("p", "P does things.");
  p.set_version("1.2.3");
  p.SetSubcommandGroup("commands", "valid commands", "additional help");
  ArgParser* sub = p.AddSubcommand("go", "", "");
  sub->set_raw_help(true);
  sub->AddOption({"x", OptionKind::kString, std::nullopt, false,
                  "first line, however long it is, is not wrapped at 78 columns by the raw formatter\n"
                  "second line"});
  absl::StatusOr<ParsedArgs> a = p.Parse({"go", "-h"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->help(),
            "usage: p go [-h] [--x X]\n\noptional arguments:\n"
            "  -h, --help  show this help message and exit\n"
            "  --x X       first line, however long it is, is not wrapped at 78 columns by the "
            "raw formatter\n"
            "              second line\n");
  a = p.Parse({"-h"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->help(),
            "usage: p [-h] [-v] {go} ...\n\nP does things.\n\noptional arguments:\n"
            "  -h, --help     show this help message and exit\n"
            "  -v, --version  show program's version number and exit\n\n"
            "commands:\n  valid commands\n\n"
            "  {go}           additional help\n");
  a = p.Parse({"-v", "--bogus"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->help(), "1.2.3\n");
}

// argparse puts help at column min(longest invocation + 4, 24) and wraps
// it at column 78.
TEST_F(CliArgsTest, LongHelpWraps) {
  ArgParser p("p", "");
  p.AddOption({"x", OptionKind::kString, std::nullopt, false,
               "a long help text that goes on and on well beyond the width of one line of the "
               "terminal"});
  absl::StatusOr<ParsedArgs> a = p.Parse({"--help"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->help(),
            "usage: p [-h] [--x X]\n\noptional arguments:\n"
            "  -h, --help  show this help message and exit\n"
            "  --x X       a long help text that goes on and on well beyond the width of\n"
            "              one line of the terminal\n");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
