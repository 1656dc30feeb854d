// The tutorial's note on global_step (section 3.5.2), as a measurement: the
// same training loop with global_step created under the CPU device and
// under the IPU, and what each costs on the simulated IPU.
#ifndef EXAMPLES_TUTORIAL_GLOBAL_STEP_TRAINING_H_
#define EXAMPLES_TUTORIAL_GLOBAL_STEP_TRAINING_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace tensorflow_ipu {
namespace examples {

struct GlobalStepRun {
  int64_t steps = 0;
  int64_t global_step = 0;         // its value after training
  uint64_t engine_switches = 0;    // over the measured steps
  double seconds_per_step = 0;     // simulated, after the first step
  double final_loss = 0;
};

// Trains a linear model for `steps` steps (gradient descent, one
// compiled training step per Run) with global_step on the IPU or the CPU.
// The IPU system must be configured with at least one IPU.
absl::StatusOr<GlobalStepRun> TrainWithGlobalStep(bool global_step_on_ipu,
                                                   int steps);

}  // namespace examples
}  // namespace tensorflow_ipu

#endif  // EXAMPLES_TUTORIAL_GLOBAL_STEP_TRAINING_H_
