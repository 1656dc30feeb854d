// Tests of ipu_saved_model_cli run its command line in the test's process
// and check what it prints and returns:
//
//   CliOutcome o = Cli({"show", "--dir", kHalfPlusTwo});
//   EXPECT_EQ(o.status, 0) << o.err;
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CLI_TESTING_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CLI_TESTING_H_

#include <sstream>
#include <string>
#include <vector>

#include "tools/ipu_saved_model_cli/cli.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// RunCli's exit status and what it wrote to stdout and stderr.
struct CliOutcome {
  int status;
  std::string out, err;
};

inline CliOutcome Cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = RunCli(args, out, err);
  return {status, out.str(), err.str()};
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CLI_TESTING_H_
