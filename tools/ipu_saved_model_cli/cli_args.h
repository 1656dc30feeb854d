// A command-line parser in the manner of Python's argparse, enough for
// ipu_saved_model_cli: nested subcommands, `--flag value` and
// `--flag=value`, unambiguous prefixes of long flags (argparse's
// allow_abbrev), store_true booleans, nargs='*' and '+' lists, required options,
// defaults and `-h`/`--help` per subcommand, with argparse's messages:
//
//   ArgParser cli("ipu_saved_model_cli", "...");
//   ArgParser* show = cli.AddSubcommand("show", "Show information about a SavedModel.",
//                                       kShowDescription);
//   show->AddOption({"dir", OptionKind::kString, std::nullopt, /*required=*/true,
//                    "directory containing the SavedModel to inspect"});
//   absl::StatusOr<ParsedArgs> args = cli.Parse({"show", "--dir", "/m"});
//   // args->subcommands() == {"show"}, *args->GetString("dir") == "/m"
//
// Errors are InvalidArgument whose message is argparse's ("the following
// arguments are required: --dir, --tag_set", "unrecognized arguments:
// --x", "argument --num_ipus: invalid int value: 'x'"); ErrorText turns
// one into what argparse prints before it exits with status 2.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CLI_ARGS_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

enum class OptionKind {
  kBool,        // store_true: present or not, takes no value
  kString,
  kInt,         // argparse type=int
  kFloat,       // argparse type=float
  kStringList,  // nargs='*': the values up to the next option
  kNonEmptyStringList,  // nargs='+': as kStringList, at least one value
};

struct OptionSpec {
  // The long name without dashes ("dir" for --dir).
  std::string name;
  OptionKind kind = OptionKind::kString;
  // The value when the option is not given, as it would be typed; none is
  // Python's None (for kBool: false; for kStringList: []).
  std::optional<std::string> default_value;
  bool required = false;
  std::string help;
  // The value's name in usage and help; empty: the name in upper case.
  std::string metavar;
};

// The options of one command line, after Parse.
class ParsedArgs {
 public:
  // The subcommands chosen, outermost first ({"show"}, {"convert", "ipu"}).
  const std::vector<std::string>& subcommands() const { return subcommands_; }
  // When -h or --help (or -v/--version) was given: the text to print
  // (then exit 0).
  const std::string& help() const { return help_; }

  // The option's value: given, or its default. An option the chosen
  // parsers do not declare, or one without a default, gives nullopt
  // (false, {} for bools and lists).
  std::optional<std::string> GetString(const std::string& name) const;
  std::optional<int64_t> GetInt(const std::string& name) const;
  std::optional<double> GetFloat(const std::string& name) const;
  bool GetBool(const std::string& name) const;
  std::vector<std::string> GetStringList(const std::string& name) const;
  // Whether the option was given on the command line.
  bool IsSet(const std::string& name) const;

 private:
  friend class ArgParser;
  struct Value {
    OptionKind kind = OptionKind::kString;
    bool set = false;
    std::optional<std::string> text;  // kString, kInt, kFloat
    int64_t int_value = 0;
    double float_value = 0;
    bool bool_value = false;
    std::vector<std::string> list;
  };
  std::vector<std::string> subcommands_;
  std::string help_;
  std::map<std::string, Value> values_;
};

class ArgParser {
 public:
  // `prog` is the program's name in usage lines; `description` is printed
  // as it is (argparse's RawDescriptionHelpFormatter) under the usage.
  ArgParser(std::string prog, std::string description);

  // Declares an option. A name declared twice keeps the last declaration.
  void AddOption(OptionSpec spec);
  // argparse's RawTextHelpFormatter: option help is printed as written,
  // broken only at its '\n's, instead of wrapped at 78 columns.
  void set_raw_help(bool raw) { raw_help_ = raw; }
  // Adds -v/--version, which prints `version` and exits as --help does.
  void set_version(std::string version) { version_ = std::move(version); }
  // Lists the subcommands in a section of their own, as argparse's
  // add_subparsers(title=..., description=..., help=...) does, instead of
  // under "positional arguments".
  void SetSubcommandGroup(std::string title, std::string description, std::string help);

  // Declares a subcommand with its own options; `help` is its line in the
  // parent's help. The parser returned lives as long as this one.
  ArgParser* AddSubcommand(const std::string& name, const std::string& help,
                           const std::string& description);

  // Parses argv[1:]. A parser with subcommands requires one.
  absl::StatusOr<ParsedArgs> Parse(const std::vector<std::string>& args) const;

  // "usage: prog [-h] --dir DIR [--all] ...", wrapped as argparse does.
  std::string Usage() const;
  // The usage, the description and every option with its help.
  std::string Help() const;
  // What argparse prints for `error` (a status from Parse) before exiting
  // with status 2: the usage of the (sub)command it concerns, then
  // "<prog>: error: <message>".
  std::string ErrorText(const absl::Status& error) const;

 private:
  struct Subcommand {
    std::string name;
    std::string help;
    std::unique_ptr<ArgParser> parser;
  };
  const OptionSpec* Find(const std::string& flag, absl::Status* error) const;
  absl::Status ParseInto(const std::vector<std::string>& args, size_t begin,
                         std::vector<std::string>* unrecognized, ParsedArgs* out) const;
  std::string Metavar(const OptionSpec& spec) const;
  std::string ValuePart(const OptionSpec& spec) const;

  std::string prog_;
  std::string description_;
  bool raw_help_ = false;
  std::string version_;
  std::string group_title_, group_description_, group_help_;
  std::vector<OptionSpec> options_;
  std::vector<Subcommand> subcommands_;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CLI_ARGS_H_
