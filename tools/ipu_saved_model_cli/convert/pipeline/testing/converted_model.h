// Helpers for the pipelining converters' tests: the frozen serving graph of
// a SavedModel (as `convert ... ipu` hands it to the converters), saving a
// converted graph as a SavedModel, and running a SavedModel's
// serving_default through LoadSavedModel + RunSignature on a simulated
// system of N IPUs.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_TESTING_CONVERTED_MODEL_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_TESTING_CONVERTED_MODEL_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/saved_model/proto/saved_model.pb.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace pipeline_testing {

struct FrozenModel {
  GraphDef graph;
  SignatureDef signature;
};

// serving_default of the SavedModel at `export_dir`, frozen for the IPU
// with unknown batch dimensions set to `batch_size`.
absl::StatusOr<FrozenModel> FreezeForIpu(const std::string& export_dir, int64_t batch_size);

// Writes `graph` (without variables) with `signature` as serving_default.
absl::Status SaveModel(const std::string& export_dir, const GraphDef& graph,
                       const SignatureDef& signature);

// Loads the SavedModel with LoadSavedModel and runs serving_default on a
// simulated system of `num_ipus` IPUs (0: no IPU system, the host only).
// The IPU system is detached afterwards.
absl::StatusOr<std::map<std::string, Tensor>> RunSavedModel(
    const std::string& export_dir, int num_ipus, const std::map<std::string, Tensor>& inputs);

}  // namespace pipeline_testing
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_TESTING_CONVERTED_MODEL_H_
