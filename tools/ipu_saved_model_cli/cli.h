// The ipu_saved_model_cli command line: its parser (the original's flags,
// defaults and help) and its subcommands, dispatched through a table.
//
//   int status = RunCli({"show", "--dir", "/m"}, std::cout, std::cerr);
//
// main.cc is only this call; tests call it too, with string streams.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CLI_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CLI_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/ipu_saved_model_cli/cli_args.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// One subcommand: its name, its line in the help, its description, a
// function declaring its options on its parser, and the function that
// runs it with the parsed options.
struct Command {
  std::string name;
  std::string help;
  std::string description;
  std::function<void(ArgParser*)> declare;
  std::function<absl::Status(const ParsedArgs&, std::ostream& out, std::ostream& err)> run;
};

// The subcommands the tool has, in the order of its help.
std::vector<Command> Commands();

// The parser of `commands`, as "ipu_saved_model_cli".
std::unique_ptr<ArgParser> MakeParser(const std::vector<Command>& commands);

// Parses `args` (argv without the program name) and runs the command.
// Returns the exit status: 0 on success (and for --help, whose text goes
// to `out`); 1 when the command fails (its status message on `err`); 2
// for a command line argparse would refuse (usage and error on `err`).
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CLI_H_
