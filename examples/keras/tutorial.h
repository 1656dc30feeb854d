// The seed's Keras tutorial ("How to run on IPU") on Fashion-MNIST: the
// same CNN trained on the CPU, on one IPU, on one IPU with
// steps_per_execution, replicated over two IPUs, and pipelined over two
// (Grouped schedule, accumulation 8), each printing Keras's progress bars.
//
//   TutorialOptions o;  o.variant = TutorialVariant::kFaster;
//   ASSIGN_OR_RETURN(TutorialResult r, RunTutorial(o));
#ifndef EXAMPLES_KERAS_TUTORIAL_H_
#define EXAMPLES_KERAS_TUTORIAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tensorflow_ipu {
namespace examples {

enum class TutorialVariant { kCpu, kIpu, kFaster, kReplicated, kPipelined };

// "cpu", "ipu", "faster", "replicated", "pipelining".
absl::StatusOr<TutorialVariant> ParseTutorialVariant(const std::string& name);

struct TutorialOptions {
  TutorialVariant variant = TutorialVariant::kCpu;
  int epochs = 3;
  int64_t batch_size = 64;
  // Images used of each split (0: all); the tests train on a few.
  int64_t train_limit = 0;
  int64_t test_limit = 0;
  int verbose = 1;
  // Print the simulated IPU time per step after each epoch.
  bool show_ipu_time = false;
  int64_t seed = 1;
  // SGD's; 0.01 is Keras's default, which compile("sgd", ...) takes.
  double learning_rate = 0.01;
};

struct TutorialResult {
  std::vector<double> losses;      // per epoch
  std::vector<double> accuracies;  // per epoch
  double eval_loss = 0, eval_accuracy = 0;
  // Simulated IPU seconds per training step of the last epoch (0 on the CPU).
  double ipu_seconds_per_step = 0;
  int64_t steps_per_epoch = 0;
  // The cost of the last training execution, as IpuRunProfile::ToString.
  std::string profile;
};

absl::StatusOr<TutorialResult> RunTutorial(const TutorialOptions& options);

}  // namespace examples
}  // namespace tensorflow_ipu

#endif  // EXAMPLES_KERAS_TUTORIAL_H_
