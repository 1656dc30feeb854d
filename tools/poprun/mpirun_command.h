// The mpirun command line that runs a poprun job, and the topology it
// prints: one MPMD application context per instance (`-np 1 ... program :
// -np 1 ... program`), each with its own POPDIST_* environment (`-x`), so
// that instance i owns the global replicas [i x L, (i + 1) x L).
//
//   std::vector<std::string> argv = BuildMpirunCommand(options, ThisMachine());
//   execvp(argv[0].c_str(), ...);
#ifndef TOOLS_POPRUN_MPIRUN_COMMAND_H_
#define TOOLS_POPRUN_MPIRUN_COMMAND_H_

#include <string>
#include <vector>

#include "tools/poprun/poprun_options.h"

namespace tensorflow_ipu {
namespace poprun {

// What the command depends on besides the options.
struct LaunchMachine {
  bool is_root = false;  // mpirun refuses root without --allow-run-as-root
  int cores = 1;         // this host's cores (mpirun's default slot count)
};

// The machine poprun runs on.
LaunchMachine ThisMachine();

// mpirun [--allow-run-as-root] [--oversubscribe] --tag-output --bind-to none
//   [-H h1:k,h2:k] <global args>
//   -np 1 -x POPDIST_...=... <local args> program args   (instance 0)
//   : -np 1 ... (instance 1) ...
// --oversubscribe when the instances run on this host and outnumber its
// cores (mpirun would refuse, "not enough slots"; with explicit slots the
// ranks busy-poll and run 3-4x slower). With -H each host gets
// instances/hosts slots. --only-output-from-instance runs the other
// instances through `/bin/sh -c 'exec "$@" >/dev/null 2>&1'`.
std::vector<std::string> BuildMpirunCommand(const PoprunOptions& options,
                                            const LaunchMachine& machine);

// The environment instance `instance` receives (NAME=value, in -x order).
std::vector<std::string> InstanceEnvironment(const PoprunOptions& options, int instance);

// One line per instance: its host, its replicas and their IPUs, e.g.
//   instance 1 on localhost: replicas [2, 4) of 4, IPUs 0-1 (1 per replica)
std::string Topology(const PoprunOptions& options);

// `argv` as one line a shell would read back (words quoted when needed).
std::string ShellJoin(const std::vector<std::string>& argv);

}  // namespace poprun
}  // namespace tensorflow_ipu

#endif  // TOOLS_POPRUN_MPIRUN_COMMAND_H_
