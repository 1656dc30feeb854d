// The seed tutorial's timings against the cost model's: runs the one-IPU,
// steps_per_execution and replicated variants for one epoch (of
// --train_limit images) and prints each one's simulated time per step with
// its breakdown, and the two ratios the seed reports (3 ms -> 224 us/step:
// 13.4x; 224 -> 134 us/step: 1.67x). docs/fidelity.md explains the gap.
//
//   bazel run //examples/keras:fidelity -- --train_limit=8192
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "examples/keras/tutorial.h"

ABSL_FLAG(int64_t, train_limit, 8192, "training images (0: all 60,000)");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  namespace ex = tensorflow_ipu::examples;
  double per_step[3] = {0, 0, 0};
  const ex::TutorialVariant variants[3] = {
      ex::TutorialVariant::kIpu, ex::TutorialVariant::kFaster, ex::TutorialVariant::kReplicated};
  const char* names[3] = {"ipu (steps_per_execution=1)", "faster (steps_per_execution=epoch)",
                          "replicated (2 IPUs)"};
  for (int i = 0; i < 3; ++i) {
    ex::TutorialOptions o;
    o.variant = variants[i];
    o.epochs = 1;
    o.train_limit = absl::GetFlag(FLAGS_train_limit);
    o.test_limit = 1024;
    o.verbose = 0;
    absl::StatusOr<ex::TutorialResult> r = ex::RunTutorial(o);
    if (!r.ok()) {
      std::cerr << r.status() << "\n";
      return 1;
    }
    per_step[i] = r->ipu_seconds_per_step;
    std::cout << names[i] << ": " << r->ipu_seconds_per_step * 1e6
              << " us per step (simulated)\n  last execution: " << r->profile << "\n";
  }
  // The seed's bars count per-replica steps for the first two; its
  // replicated bar counted every batch (936 steps of 64), so its 134 us is
  // per batch: half a replicated step.
  std::cout << "steps_per_execution speed-up: " << per_step[0] / per_step[1]
            << "x (seed: 13.4x)\n";
  std::cout << "replication speed-up per batch: " << per_step[1] / (per_step[2] / 2)
            << "x (seed: 1.67x)\n";
  return 0;
}
