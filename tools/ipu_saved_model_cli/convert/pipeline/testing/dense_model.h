// A SavedModel of a multi-layer perceptron for the pipelining tests,
// written with SavedModelBuilder: input "x" of shape [-1, widths[0]], then
// for each further width k a dense layer "dense_<i>" (MatMul with a Const
// "dense_<i>/kernel", BiasAdd with "dense_<i>/bias", Relu but for the last
// layer), and the output "y" (an Identity). Signature "serving_default":
// x -> y. Weights are small fixed numbers, so results are reproducible.
//
//   ASSERT_OK(WriteDenseModel(dir, {4, 8, 3}));   // two layers
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_TESTING_DENSE_MODEL_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_TESTING_DENSE_MODEL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace pipeline_testing {

absl::Status WriteDenseModel(const std::string& export_dir, const std::vector<int>& widths);

}  // namespace pipeline_testing
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_TESTING_DENSE_MODEL_H_
