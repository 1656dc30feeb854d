// ipu_saved_model_cli: shows and runs SavedModels (docs/saved_model_cli.md).
//
//   ipu_saved_model_cli show --dir /tmp/model --all
//   ipu_saved_model_cli run --dir /tmp/model --tag_set serve
//       --signature_def serving_default --input_exprs 'x=[[1],[2],[5]]'
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tools/ipu_saved_model_cli/cli.h"

int main(int argc, char** argv) {
  // Under `bazel run` the program starts in its runfiles; relative paths
  // are meant relative to where the user typed the command.
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY"); wd != nullptr) {
    if (chdir(wd) != 0) {
      std::cerr << "cannot change to the working directory " << wd << "\n";
      return 1;
    }
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  return tensorflow_ipu::saved_model_cli::RunCli(args, std::cout, std::cerr);
}
