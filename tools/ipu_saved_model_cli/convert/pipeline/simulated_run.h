// Running a converted serving graph once on the simulated IPU system with
// profiling on, as the original ran its candidate pipelines on the IPU
// Model: the profile of every cluster the run compiled (poplar_sim's
// profile.json, whose program steps are named after the graph's nodes)
// and the signature's outputs.
//
//   SimulatedRunOptions options{/*num_ipus=*/4, /*batch_size=*/8, "profiling/try-4"};
//   ASSIGN_OR_RETURN(SimulatedRun run, RunOnSimulator(graph, signature, options));
//   run.profiles[0]["steps"] ...
//
// The IPU system is process-wide: the run configures one device of
// num_ipus IPUs with autoReport into report_dir, and afterwards puts back
// the configuration that was there before (or detaches, if none was).
// The inputs are zeros of each input's dtype and shape (an unknown
// dimension gets batch_size): the simulator's cycles do not depend on the
// values of a dense graph.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_SIMULATED_RUN_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_SIMULATED_RUN_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/saved_model/proto/saved_model.pb.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

struct SimulatedRunOptions {
  int num_ipus = 1;
  int64_t batch_size = 1;
  // Where the engines write their reports (one subdirectory per cluster);
  // created if missing, emptied first.
  std::string report_dir;
  // Compile even when a tile's memory is exceeded (debug.allowOutOfMemory),
  // so that the profile shows by how much: a split is judged on it.
  bool allow_out_of_memory = true;
};

struct SimulatedRun {
  std::vector<nlohmann::json> profiles;   // profile.json of each cluster
  std::map<std::string, Tensor> outputs;  // by signature output key
};

// Zeros for every signature input, from its Placeholder's dtype and shape.
// InvalidArgument naming the input when its node is missing, is not a
// Placeholder, or has an unknown rank.
absl::StatusOr<std::map<std::string, Tensor>> ZeroInputs(const GraphDef& graph,
                                                         const SignatureDef& signature,
                                                         int64_t batch_size);

// Runs the graph with `inputs` (ZeroInputs when empty).
absl::StatusOr<SimulatedRun> RunOnSimulator(const GraphDef& graph, const SignatureDef& signature,
                                            const SimulatedRunOptions& options,
                                            std::map<std::string, Tensor> inputs = {});

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_SIMULATED_RUN_H_
