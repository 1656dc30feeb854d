// The tutorial's note on global_step (section 3.5.2): "If the global_step
// variable is placed on the IPU device, then this increment operation will
// occur on the IPU too. This will cause the Poplar training engine to be
// swapped out for the increment engine on each training step, causing very
// poor performance." Runs the same training with global_step on the CPU and
// on the IPU and prints the engine switches and simulated time per step.
#include <cstdio>

#include "examples/tutorial/global_step_training.h"
#include "tensorflow_ipu/ipu/config.h"

namespace tfipu = tensorflow_ipu;

int main() {
  tfipu::ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  absl::Status status = cfg.configure_ipu_system();
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  constexpr int kSteps = 50;
  double cpu_seconds = 0;
  for (bool on_ipu : {false, true}) {
    absl::StatusOr<tfipu::examples::GlobalStepRun> r =
        tfipu::examples::TrainWithGlobalStep(on_ipu, kSteps);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      return 1;
    }
    std::printf(
        "global_step on the %s: %lld steps, global_step = %lld, loss %.4f, "
        "%llu engine switches, %.1f us simulated per step",
        on_ipu ? "IPU" : "CPU", static_cast<long long>(r->steps),
        static_cast<long long>(r->global_step), r->final_loss,
        static_cast<unsigned long long>(r->engine_switches),
        r->seconds_per_step * 1e6);
    if (on_ipu) {
      std::printf(" (%.1fx the CPU placement)", r->seconds_per_step / cpu_seconds);
    } else {
      cpu_seconds = r->seconds_per_step;
    }
    std::printf("\n");
  }
  return 0;
}
