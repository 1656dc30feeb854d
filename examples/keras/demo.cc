// The seed's Keras tutorial, one variant per run:
//
//   bazel run //examples/keras:demo -- --variant=cpu
//   bazel run //examples/keras:demo -- --variant=ipu
//   bazel run //examples/keras:demo -- --variant=faster --show_ipu_time
//   bazel run //examples/keras:demo -- --variant=replicated
//   bazel run //examples/keras:demo -- --variant=pipelining
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "examples/keras/tutorial.h"

ABSL_FLAG(std::string, variant, "cpu", "cpu, ipu, faster, replicated or pipelining");
ABSL_FLAG(int32_t, epochs, 3, "passes over the training set");
ABSL_FLAG(int64_t, batch_size, 64, "images per step (per replica)");
ABSL_FLAG(int64_t, train_limit, 0, "training images used (0: all 60,000)");
ABSL_FLAG(int64_t, test_limit, 0, "test images used (0: all 10,000)");
ABSL_FLAG(bool, show_ipu_time, false, "print the simulated IPU time per step");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("The Keras tutorial on Fashion-MNIST, on the CPU or the IPU");
  absl::ParseCommandLine(argc, argv);
  namespace ex = tensorflow_ipu::examples;
  absl::StatusOr<ex::TutorialVariant> variant =
      ex::ParseTutorialVariant(absl::GetFlag(FLAGS_variant));
  if (!variant.ok()) {
    std::cerr << variant.status() << "\n";
    return 2;
  }
  ex::TutorialOptions o;
  o.variant = *variant;
  o.epochs = absl::GetFlag(FLAGS_epochs);
  o.batch_size = absl::GetFlag(FLAGS_batch_size);
  o.train_limit = absl::GetFlag(FLAGS_train_limit);
  o.test_limit = absl::GetFlag(FLAGS_test_limit);
  o.show_ipu_time = absl::GetFlag(FLAGS_show_ipu_time);
  static const char* kTitles[] = {"running on CPU", "running on IPU",
                                  "running on IPU with steps_per_execution",
                                  "running on IPU with replication",
                                  "running on IPU with pipelining"};
  std::cout << "Keras MNIST example, " << kTitles[static_cast<int>(o.variant)] << std::endl;
  absl::StatusOr<ex::TutorialResult> r = ex::RunTutorial(o);
  if (!r.ok()) {
    std::cerr << r.status() << "\n";
    return 1;
  }
  if (r->ipu_seconds_per_step > 0) {
    std::cout << "Simulated IPU time per training step: " << r->ipu_seconds_per_step * 1e6
              << " us" << std::endl;
  }
  return 0;
}
