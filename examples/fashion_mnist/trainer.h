// Trains the example's MLP (mlp_model.h) on the simulated IPU the way the
// vendor's TF1 port trains: the training step is an on-device loop
// (ipu::loops::repeat) of `steps_per_run` steps over an IPUInfeedQueue of
// shuffled (images, labels) batches, compiled with ipu_compiler::compile
// under ipu_scope; each step's loss comes back through an IPUOutfeedQueue;
// global_step lives on the host. The weights stay on the IPU between runs.
//
// Evaluation is a second on-device loop over the test set that sends the
// logits and labels back through another outfeed; the host takes the
// argmax and counts the hits.
//
//   ipu::config::IPUConfig cfg;  cfg.auto_select_ipus = 1;
//   RETURN_IF_ERROR(cfg.configure_ipu_system());
//   ASSIGN_OR_RETURN(auto trainer, MlpTrainer::Create(data.train, data.test, {}));
//   ASSIGN_OR_RETURN(TrainStats t, trainer->Train(trainer->runs_per_epoch()));
//   ASSIGN_OR_RETURN(EvalStats e, trainer->Evaluate());
#ifndef EXAMPLES_FASHION_MNIST_TRAINER_H_
#define EXAMPLES_FASHION_MNIST_TRAINER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "examples/fashion_mnist/fashion_mnist_data.h"
#include "examples/fashion_mnist/mlp_model.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/scope.h"

namespace tensorflow_ipu {
namespace examples {

struct TrainerOptions {
  int batch_size = 32;
  double learning_rate = 0.05;
  // Training steps per Run: the iterations of the on-device loop.
  int steps_per_run = 125;
  // Test images per evaluation step; must divide the test set.
  int eval_batch_size = 100;
  // Seeds the weights and the shuffle of the training set.
  int64_t seed = 1;
};

struct TrainStats {
  std::vector<float> losses;     // one per step, in order
  double simulated_seconds = 0;  // sum of the runs' IpuRunProfile::total_seconds
  uint64_t engine_switches = 0;  // over the runs
  double mean_loss() const;
};

struct EvalStats {
  int64_t examples = 0;
  int64_t correct = 0;
  double accuracy = 0;           // correct / examples
  double simulated_seconds = 0;  // of the evaluation run
};

class MlpTrainer {
 public:
  // Builds the graphs and a session, and initialises the weights. The IPU
  // system must be configured with /device:IPU:0. InvalidArgument when a
  // batch size or steps_per_run is below 1, when the training set has
  // fewer images than one batch, or when eval_batch_size does not divide
  // the test set (saying by how much).
  static absl::StatusOr<std::unique_ptr<MlpTrainer>> Create(
      const LabelledImages& train, const LabelledImages& test,
      const TrainerOptions& options);

  // Runs `runs` on-device loops (runs * steps_per_run steps). The training
  // set is reshuffled at each pass over it, and continues across calls.
  absl::StatusOr<TrainStats> Train(int runs);
  // Accuracy on the whole test set with the current weights.
  absl::StatusOr<EvalStats> Evaluate();
  // The value of global_step (the steps trained so far).
  absl::StatusOr<int64_t> GlobalStep();

  // Whole batches in one pass over the training set.
  int64_t batches_per_epoch() const { return batches_per_epoch_; }
  const TrainerOptions& options() const { return options_; }

 private:
  explicit MlpTrainer(const Scope& root) : root_(root) {}

  Scope root_;
  TrainerOptions options_;
  int64_t batches_per_epoch_ = 0;
  int64_t test_examples_ = 0;
  Variable global_step_;
  Output global_step_value_;
  Operation train_loop_;      // one Run: steps_per_run training steps
  Operation train_feed_init_;
  Output losses_;             // dequeued losses [steps]
  Operation eval_loop_;       // one Run: the whole test set
  Operation eval_feed_init_;
  Output eval_correct_;       // float scalar: hits among the dequeued logits
  Output eval_count_;         // int32 scalar: examples dequeued
  std::unique_ptr<ClientSession> session_;
};

}  // namespace examples
}  // namespace tensorflow_ipu

#endif  // EXAMPLES_FASHION_MNIST_TRAINER_H_
