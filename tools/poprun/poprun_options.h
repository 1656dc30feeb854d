// poprun's command line: how many instances (processes), replicas and IPUs
// per replica a job has, on which hosts, what to pass to mpirun, and the
// program to run. The flags are the vendor's poprun's (see
// docs/distributed.md):
//
//   poprun --num-instances 2 --num-replicas 4 [--ipus-per-replica 1]
//          [-H host1,host2] [--mpi-global-args "..."] [--mpi-local-args "..."]
//          [--only-output-from-instance 0] [--print-topology] [-vv]
//          program [args...]
//
//   absl::StatusOr<PoprunOptions> options = ParsePoprunArgs(args);
#ifndef TOOLS_POPRUN_POPRUN_OPTIONS_H_
#define TOOLS_POPRUN_POPRUN_OPTIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tensorflow_ipu {
namespace poprun {

struct PoprunOptions {
  int num_instances = 1;
  int num_replicas = 1;
  int ipus_per_replica = 1;
  // -H/--host: the hosts the instances are divided among, evenly and in
  // order (instances 0 .. n/h - 1 on the first). Empty: this host only.
  std::vector<std::string> hosts;
  // Split like a shell splits words (quotes group, no expansion).
  std::vector<std::string> mpi_global_args;  // once, before the instances
  std::vector<std::string> mpi_local_args;   // for every instance
  // Only this instance's stdout and stderr are shown (the others' are
  // discarded, errors included: mpirun still reports a failed instance).
  std::optional<int> only_output_from_instance;
  bool print_topology = false;
  int verbosity = 0;  // -v: 1, -vv: 2 (prints the mpirun command)
  bool help = false;
  // The program and its arguments: everything from the first argument that
  // is not an option (or after "--").
  std::vector<std::string> program;

  int local_replicas() const { return num_replicas / num_instances; }
  int instances_per_host() const {
    return hosts.empty() ? num_instances : num_instances / static_cast<int>(hosts.size());
  }
};

// Parses argv[1..] (without the program name). InvalidArgument naming the
// flag for an unknown flag, a missing or malformed value, an unmatched quote
// in --mpi-*-args, no program; and for numbers that do not fit together,
// naming them: replicas not divisible by instances, instances not divisible
// by hosts, an --only-output-from-instance beyond the instances, a count
// below 1.
absl::StatusOr<PoprunOptions> ParsePoprunArgs(const std::vector<std::string>& args);

// Splits `text` into words as a POSIX shell does for quoting: blanks
// separate, '...' and "..." group (a backslash escapes the next character
// outside single quotes); no variables or globs. `flag` names the option in
// the error for an unmatched quote.
absl::StatusOr<std::vector<std::string>> SplitShellWords(const std::string& text,
                                                         const std::string& flag);

// The usage text for --help.
std::string Usage();

}  // namespace poprun
}  // namespace tensorflow_ipu

#endif  // TOOLS_POPRUN_POPRUN_OPTIONS_H_
