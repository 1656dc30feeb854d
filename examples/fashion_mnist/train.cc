// Trains an MLP 784-256-128-10 on Fashion-MNIST on one simulated IPU, with
// an on-device training loop over an infeed (see trainer.h), and prints per
// epoch the mean training loss, the test accuracy, the host wall time and
// the simulated IPU time.
//
//   bazel run //examples/fashion_mnist:train -- --epochs=2
//
// The data comes from the Debian package dataset-fashion-mnist.
#include <chrono>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "examples/fashion_mnist/fashion_mnist_data.h"
#include "examples/fashion_mnist/trainer.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/config.h"

ABSL_FLAG(int32_t, epochs, 2, "passes over the training set");
ABSL_FLAG(int32_t, batch_size, 32, "training images per step");
ABSL_FLAG(double, learning_rate, 0.05, "SGD learning rate");
ABSL_FLAG(int32_t, steps_per_run, 125,
          "training steps per on-device loop (per Session::Run); must divide "
          "the batches of an epoch (1875 for the full set at batch 32)");
ABSL_FLAG(int32_t, eval_batch_size, 100, "test images per evaluation step");
ABSL_FLAG(int64_t, seed, 1, "seed of the initial weights and the shuffle");
ABSL_FLAG(std::string, data_dir, tensorflow_ipu::examples::kFashionMnistDir,
          "directory of the Fashion-MNIST IDX files");
ABSL_FLAG(int64_t, train_examples, 0, "use the first N training images (0: all)");
ABSL_FLAG(int64_t, test_examples, 0, "use the first N test images (0: all)");

namespace tensorflow_ipu {
namespace examples {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

absl::Status Main() {
  const int epochs = absl::GetFlag(FLAGS_epochs);
  if (epochs < 1) return absl::InvalidArgumentError("--epochs must be at least 1");
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  RETURN_IF_ERROR(cfg.configure_ipu_system());

  const std::string dir = absl::GetFlag(FLAGS_data_dir);
  ASSIGN_OR_RETURN(FashionMnist data,
                   LoadFashionMnist(dir, absl::GetFlag(FLAGS_train_examples),
                                    absl::GetFlag(FLAGS_test_examples)));
  std::printf("Fashion-MNIST from %s: %lld training images, %lld test images\n",
              dir.c_str(), static_cast<long long>(data.train.count()),
              static_cast<long long>(data.test.count()));
  std::fflush(stdout);

  TrainerOptions options;
  options.batch_size = absl::GetFlag(FLAGS_batch_size);
  options.learning_rate = absl::GetFlag(FLAGS_learning_rate);
  options.steps_per_run = absl::GetFlag(FLAGS_steps_per_run);
  options.eval_batch_size = absl::GetFlag(FLAGS_eval_batch_size);
  options.seed = absl::GetFlag(FLAGS_seed);
  if (options.batch_size < 1 || options.steps_per_run < 1) {
    return absl::InvalidArgumentError(
        "--batch_size and --steps_per_run must be at least 1");
  }
  const int64_t batches = data.train.count() / options.batch_size;
  if (batches % options.steps_per_run != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--steps_per_run=", options.steps_per_run, " does not divide the ",
        batches, " batches of an epoch (", batches % options.steps_per_run,
        " left over); choose a divisor of ", batches));
  }
  const int runs = static_cast<int>(batches / options.steps_per_run);
  ASSIGN_OR_RETURN(std::unique_ptr<MlpTrainer> trainer,
                   MlpTrainer::Create(data.train, data.test, options));
  std::printf(
      "MLP 784-256-128-10, SGD lr %g, batch %d, %lld steps per epoch as %d "
      "runs of a %d-step on-device loop\n",
      options.learning_rate, options.batch_size, static_cast<long long>(batches),
      runs, options.steps_per_run);
  std::fflush(stdout);

  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(TrainStats train, trainer->Train(runs));
    const double train_wall = SecondsSince(start);
    const auto eval_start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(EvalStats eval, trainer->Evaluate());
    const double eval_wall = SecondsSince(eval_start);
    std::printf(
        "epoch %d/%d: loss %.4f, test accuracy %.2f%% (%lld/%lld), wall %.1f s "
        "(train %.1f s, eval %.1f s), simulated IPU %.3f s (train %.3f s, "
        "eval %.3f s)\n",
        epoch, epochs, train.mean_loss(), 100.0 * eval.accuracy,
        static_cast<long long>(eval.correct), static_cast<long long>(eval.examples),
        train_wall + eval_wall, train_wall, eval_wall,
        train.simulated_seconds + eval.simulated_seconds, train.simulated_seconds,
        eval.simulated_seconds);
    std::fflush(stdout);
  }
  ASSIGN_OR_RETURN(int64_t step, trainer->GlobalStep());
  std::printf("global_step = %lld\n", static_cast<long long>(step));
  return absl::OkStatus();
}

}  // namespace
}  // namespace examples
}  // namespace tensorflow_ipu

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Trains an MLP on Fashion-MNIST on a simulated IPU.\n"
      "  bazel run //examples/fashion_mnist:train -- --epochs=2");
  absl::ParseCommandLine(argc, argv);
  absl::Status status = tensorflow_ipu::examples::Main();
  if (!status.ok()) {
    std::fprintf(stderr, "train: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
