// A small training model for tests that must reproduce training exactly:
// a two-layer MLP (3 -> 5 ReLU -> 2) trained by GradientDescent on a squared
// error, with global_step on the host. Building it twice gives identical
// graphs, so a new session over a rebuilt model can continue a run.
//
//   ASSIGN_OR_RETURN(MlpTestModel m, BuildMlpTestModel(root, device));
//   ClientSession session(root);
//   RETURN_IF_ERROR(session.Run({}, {}, {m.init}, nullptr));
//   ASSIGN_OR_RETURN(std::vector<float> losses, TrainMlpTestModel(session, m, 0, 5));
#ifndef TENSORFLOW_IPU_TRAIN_MLP_TEST_MODEL_H_
#define TENSORFLOW_IPU_TRAIN_MLP_TEST_MODEL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/cc/variables/variable.h"

namespace tensorflow_ipu {
namespace train {

struct MlpTestModel {
  Output x;     // [4,3] features, fed on the host
  Output y;     // [4,2] targets, fed on the host
  Output loss;  // mean squared error
  Operation train;  // one GradientDescent step; global_step += 1
  Operation init;   // global_variables_initializer
  Variable global_step;
  // "mlp/w1", "mlp/b1", "mlp/w2", "mlp/b2"; created under `device`.
  std::vector<Variable> weights;
};

// Builds the model in `root`'s graph: weights and their ops under
// `device` (root itself, or an ipu_scope), global_step on the CPU.
absl::StatusOr<MlpTestModel> BuildMlpTestModel(const Scope& root,
                                               const Scope& device);

// The batch of step `step`: different every step, the same in every
// process.
ClientSession::FeedType MlpTestFeeds(const MlpTestModel& model, int64_t step);

// Runs steps first_step .. first_step + steps - 1, returning each step's
// loss (computed before that step's update).
absl::StatusOr<std::vector<float>> TrainMlpTestModel(const ClientSession& session,
                                                     const MlpTestModel& model,
                                                     int64_t first_step, int steps);

}  // namespace train
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_TRAIN_MLP_TEST_MODEL_H_
