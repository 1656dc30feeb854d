// Pipelined training on two IPUs, in each schedule, against the same model
// trained on one IPU with the same gradient accumulation; then 2 stages x 2
// replicas on four IPUs, pipelined and (Sequential) sharded. Prints each run's losses, whether its weights
// equal the one-IPU run's, and its simulated time per micro-batch and
// speed-up.
//
//   bazel run //examples/multi_ipu:pipelined_training
#include <cmath>
#include <cstdio>

#include "examples/multi_ipu/pipelined_mlp.h"

int main() {
  using tensorflow_ipu::examples::PipelinedMlpConfig;
  using tensorflow_ipu::examples::PipelinedMlpRun;
  using Schedule = tensorflow_ipu::ipu::pipelining_ops::PipelineSchedule;
  struct Row {
    const char* name;
    PipelinedMlpConfig config;
  };
  PipelinedMlpConfig one;
  one.pipelined = false;
  PipelinedMlpConfig grouped, interleaved, sequential, replicated, sharded_replicated;
  interleaved.schedule = Schedule::Interleaved;
  sequential.schedule = Schedule::Sequential;
  replicated.replicas = 2;
  sharded_replicated.schedule = Schedule::Sequential;
  sharded_replicated.replicas = 2;
  std::printf("%-28s  first loss  last loss  same weights  us per micro-batch  speed-up\n", "run");
  PipelinedMlpRun base;
  for (const Row& row : {Row{"1 IPU, accumulating 8", one},
                         Row{"2 IPUs, Sequential (shards)", sequential},
                         Row{"2 IPUs, Grouped", grouped},
                         Row{"2 IPUs, Interleaved", interleaved},
                         Row{"4 IPUs, 2 stages x 2 replicas", replicated},
                         Row{"4 IPUs, 2 shards x 2 replicas", sharded_replicated}}) {
    absl::StatusOr<PipelinedMlpRun> r = tensorflow_ipu::examples::TrainPipelinedMlp(row.config);
    if (!r.ok()) {
      std::fprintf(stderr, "pipelined_training: %s\n", r.status().ToString().c_str());
      return 1;
    }
    if (!row.config.pipelined) base = *r;
    double max_diff = 0;
    for (size_t i = 0; i < r->w1.size(); ++i) {
      max_diff = std::fmax(max_diff, std::fabs(r->w1[i] - base.w1[i]));
    }
    const int micro_batches = row.config.accumulation * row.config.repeat;
    std::printf("%-28s  %10.6f  %9.6f  %12s  %18.2f  %7.2fx\n", row.name, r->losses.front(),
                r->losses.back(), max_diff < 1e-4 ? "yes" : "NO",
                r->seconds * 1e6 / micro_batches, base.seconds / r->seconds);
  }
  return 0;
}
