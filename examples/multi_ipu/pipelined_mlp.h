// Pipelined training of an MLP on two IPUs, the way a user of the vendor's
// port writes it: two computational stages, an optimizer_function, an
// infeed and an outfeed of the loss, ipu::pipelining_ops::pipeline inside
// ipu_compiler::compile. For comparison, the same model trains on one IPU in
// an ordinary loop with GradientAccumulationOptimizerV2 (the same
// accumulation, so the same weights), and, with 4 IPUs, as 2 stages x 2
// replicas (the optimizer wrapped in CrossReplicaOptimizer; each replica
// takes half of every micro-batch, so the weights are the same again).
#ifndef EXAMPLES_MULTI_IPU_PIPELINED_MLP_H_
#define EXAMPLES_MULTI_IPU_PIPELINED_MLP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/pipelining/pipelining_ops.h"

namespace tensorflow_ipu {
namespace examples {

struct PipelinedMlpConfig {
  bool pipelined = true;  // false: one IPU, an ordinary loop
  ipu::pipelining_ops::PipelineSchedule schedule =
      ipu::pipelining_ops::PipelineSchedule::Grouped;
  int replicas = 1;        // of the pipeline (2 stages each)
  int micro_batch = 128;   // rows per micro-batch (over all replicas)
  int accumulation = 8;    // micro-batches per weight update
  int repeat = 2;          // weight updates per run
  int hidden = 2048;       // width of the wide layers (two per stage)
  int cut = 64;            // width of the layer between the stages
  // IPUConfig.optimizations.maximum_cross_replica_sum_buffer_size: with
  // replicas, each stage's gradient all-reduces go as one (0: each alone).
  int64_t cross_replica_sum_buffer = 0;
};

struct PipelinedMlpRun {
  std::vector<float> losses;  // per micro-batch of the measured run
  std::vector<float> w1;      // the first layer's weights after training
  double seconds = 0;         // simulated time of the measured run
  int samples = 0;            // rows in the measured run
};

// Configures the IPU system (replacing any configuration), builds the
// model, runs it twice (the first run compiles) and reports the second.
absl::StatusOr<PipelinedMlpRun> TrainPipelinedMlp(const PipelinedMlpConfig& config);

}  // namespace examples
}  // namespace tensorflow_ipu

#endif  // EXAMPLES_MULTI_IPU_PIPELINED_MLP_H_
