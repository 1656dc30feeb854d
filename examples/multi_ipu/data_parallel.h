// Data-parallel training of an MLP on 1, 2 or 4 replicas, the way a
// user of the vendor's port writes it: an infeed, an on-device loop, the
// optimizer wrapped in CrossReplicaOptimizer, an outfeed of the loss. The
// global batch is the same for every replica count (each replica takes
// global_batch / replicas rows), so the trained weights are the same and
// only the simulated time changes.
#ifndef EXAMPLES_MULTI_IPU_DATA_PARALLEL_H_
#define EXAMPLES_MULTI_IPU_DATA_PARALLEL_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/cc/variables/variable.h"
#include "tensorflow_ipu/ipu/config.h"

namespace tensorflow_ipu {
namespace examples {

struct DataParallelRun {
  int replicas = 1;
  std::vector<float> losses;  // per step, averaged over the replicas
  std::vector<float> w1;      // the first layer's weights after training
  double seconds = 0;         // simulated time of the training loop's run
  uint64_t all_reduce_bytes = 0;  // IPU-Link bytes one replica sent
  int samples = 0;            // rows trained on
};

// This process's share of a multi-process run (examples/distributed): it
// runs its `replicas` of instances x replicas, and its infeed takes every
// instances-th per-replica batch from the index-th (dataset.shard), which
// with one replica per instance is exactly the batch that replica would
// get in a single process.
struct DataParallelShare {
  int instances = 1;
  int index = 0;
  // Adjusts the configuration before configure_ipu_system (for instance
  // distributed::popdist::set_ipu_config).
  std::function<absl::Status(ipu::config::IPUConfig&)> configure;
  // Runs after the variables are initialised, before training (for
  // instance a broadcast of instance 0's values).
  std::function<absl::Status(const Scope& root, const ClientSession& session,
                             const std::vector<Variable>& variables)>
      after_init;
};

// The MLP's sizes: inputs, hidden layers (ReLU), outputs.
inline const std::vector<int> kSmallMlp = {64, 128, 10};
// tools/bench's MLP (784-256-128-10).
inline const std::vector<int> kBenchmarkMlp = {784, 256, 128, 10};

// Trains `steps` mini-batches of `global_batch` rows on `replicas` IPUs
// (one replica each), the MLP of `layers` regressing a fixed function of
// its inputs (mean squared error, SGD). With `accumulate` > 0 the
// gradients of that many mini-batches are accumulated (MEAN) before each
// update, so the replicas all-reduce once per update instead of once per
// mini-batch. Configures the IPU system (replacing any configuration).
absl::StatusOr<DataParallelRun> TrainDataParallel(int replicas, int global_batch, int steps,
                                                  int accumulate = 0,
                                                  const DataParallelShare& share = {},
                                                  const std::vector<int>& layers = kSmallMlp);

}  // namespace examples
}  // namespace tensorflow_ipu

#endif  // EXAMPLES_MULTI_IPU_DATA_PARALLEL_H_
