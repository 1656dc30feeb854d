// poprun: runs a program as several instances over Open MPI's mpirun, each
// with its share of the replicas (docs/distributed.md). It validates the
// numbers, prints the topology when asked, and replaces itself with mpirun,
// whose exit status (a failed instance's) becomes the job's.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "tools/poprun/mpirun_command.h"
#include "tools/poprun/poprun_options.h"

int main(int argc, char** argv) {
  using namespace tensorflow_ipu::poprun;  // NOLINT
  const std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<PoprunOptions> options = ParsePoprunArgs(args);
  if (!options.ok()) {
    std::cerr << "poprun: error: " << options.status().message() << "\n";
    return 2;
  }
  if (options->help) {
    std::cout << Usage();
    return 0;
  }
  if (options->print_topology) std::cout << Topology(*options) << std::flush;
  const std::vector<std::string> command = BuildMpirunCommand(*options, ThisMachine());
  if (options->verbosity >= 2) std::cerr << "poprun: " << ShellJoin(command) << std::endl;
  std::vector<char*> exec_argv;
  for (const std::string& word : command) exec_argv.push_back(const_cast<char*>(word.c_str()));
  exec_argv.push_back(nullptr);
  execvp(exec_argv[0], exec_argv.data());
  std::cerr << "poprun: error: cannot run " << command[0] << ": " << std::strerror(errno)
            << " (is Open MPI installed? tools/bootstrap.sh installs openmpi-bin)\n";
  return 127;
}
