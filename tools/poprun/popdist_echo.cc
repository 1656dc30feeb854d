// A tiny program for poprun's tests: each instance prints the PopDist
// environment it received (popdist::Describe), or its error. With
// `--fail-instance K` instance K exits with status 3 at once while the
// others sleep for a minute, so a test can see that one failed instance
// ends the whole job.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "tensorflow_ipu/distributed/popdist.h"

int main(int argc, char** argv) {
  namespace popdist = tensorflow_ipu::distributed::popdist;
  absl::StatusOr<popdist::PopDistEnv> env = popdist::FromProcessEnvironment();
  if (!env.ok()) {
    std::cerr << "popdist_echo: " << env.status() << "\n";
    return 1;
  }
  std::cout << popdist::Describe(*env) << std::endl;
  if (argc == 3 && std::strcmp(argv[1], "--fail-instance") == 0) {
    if (env->instance_index == std::atoi(argv[2])) {
      std::cerr << "instance " << env->instance_index << " fails on purpose" << std::endl;
      return 3;
    }
    sleep(60);
  }
  return 0;
}
