// The library's training contestants of train_mlp (issue 6): the MLP of
// mlp_weights.h trained with plain SGD by this library as a TF1 program
// would write it: the weights are resource variables initialised from an
// MlpWeights, the step is MatMul + BiasAdd (+ Relu) per layer, the mean
// sparse softmax cross-entropy, and train::GradientDescentOptimizer::
// minimize. Batches are the set's in file order, from batch 0.
//
//  - kIpuLoop: the vendor's TF1 port's way. The variables live on the IPU
//    (ipu_scope); one Run is ipu::loops::repeat of `steps_per_run` steps,
//    compiled with ipu_compiler::compile, over an IPUInfeedQueue of
//    Dataset::FromTensorSlices({images, labels}).Batch(batch, true); each
//    step's loss goes out through an IPUOutfeedQueue, dequeued once at the
//    end of Train. When `steps` is not a multiple of `steps_per_run`, a
//    second, shorter loop runs the remainder at the end.
//    Two variants use more IPUs for the same training (the same global batch
//    of `batch` rows per step and the same SGD step, so the same weights up
//    to float rounding): `replicas` > 1 splits each batch over replicas
//    (CrossReplicaOptimizer averages their gradients); `pipeline_micro_batches`
//    > 0 pipelines the MLP over 2 IPUs (the first layer on IPU 0, the rest
//    and the loss on IPU 1; ipu::pipelining_ops::pipeline, Grouped) with
//    micro-batches of batch / pipeline_micro_batches rows whose gradients are
//    averaged (MEAN) into each step's update. The IPU system must have
//    replicas x (pipelined ? 2 : 1) IPUs. `accumulation_micro_batches` > 0
//    (not with pipelining) is the pipelined program's computation on one
//    IPU: the loop runs one iteration per micro-batch and
//    GradientAccumulationOptimizerV2 (MEAN) updates once per step.
//  - kCpu: the variables on the host; one ClientSession::Run per step,
//    feeding the batch through placeholders (tensors made by Create) and
//    fetching the loss while running the minimize op.
//
//   LibraryTrainOptions options;
//   options.device = LibraryTrainDevice::kIpuLoop;
//   ASSIGN_OR_RETURN(std::unique_ptr<LibraryTrainer> t,
//                    LibraryTrainer::Create(weights, data.train, 1875, options));
//   RETURN_IF_ERROR(t->WarmUp());                 // compile, then Reset
//   ASSIGN_OR_RETURN(std::vector<float> losses, t->Train());  // 1875 steps
//   ASSIGN_OR_RETURN(MlpWeights trained, t->Weights());
#ifndef TOOLS_BENCH_LIBRARY_TRAIN_H_
#define TOOLS_BENCH_LIBRARY_TRAIN_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/cc/variables/variable.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tools/bench/fashion_mnist.h"
#include "tools/bench/mlp_weights.h"

namespace tfipu_bench {

enum class LibraryTrainDevice {
  kCpu,      // CPU executor, one step per Run, batches fed
  kIpuLoop,  // simulated /device:IPU:0, loops::repeat over an infeed
};

struct LibraryTrainOptions {
  LibraryTrainDevice device = LibraryTrainDevice::kIpuLoop;
  int batch = 32;
  double learning_rate = 0.05;
  // kIpuLoop: steps per Run (the on-device loop's iterations).
  int steps_per_run = 125;
  // kCpu: steps WarmUp runs (kIpuLoop warms up with one Run of each loop).
  int warmup_steps = 20;
  int num_threads = 0;  // SessionOptions::num_threads
  // kIpuLoop: replicas of the training (data parallel), and the number of
  // micro-batches of a pipelined step (0: not pipelined); see above.
  int replicas = 1;
  int pipeline_micro_batches = 0;
  int accumulation_micro_batches = 0;
};

class LibraryTrainer {
 public:
  // Builds the graph and session for training `steps` steps on the first
  // `steps` batches of `set`, and initialises the variables. For kIpuLoop
  // the IPU system must be configured with /device:IPU:0. InvalidArgument
  // when `steps`, the batch or steps_per_run is below 1, when the set has
  // fewer than `steps` batches, or when `initial` has no layers or its
  // input width is not the set's pixels.
  static absl::StatusOr<std::unique_ptr<LibraryTrainer>> Create(
      const MlpWeights& initial, const ImageSet& set, int64_t steps,
      const LibraryTrainOptions& options);

  // Runs what Train runs once, so that Train's timing excludes compiling
  // and first-run costs, then Reset()s.
  absl::Status WarmUp();
  // The initial weights back into the variables, the data back to batch 0,
  // and the outfeed emptied.
  absl::Status Reset();
  // `steps` training steps from the current state; each step's loss.
  absl::StatusOr<std::vector<float>> Train();
  // The variables' current values.
  absl::StatusOr<MlpWeights> Weights() const;

  // Simulated IPU seconds of the last Train's Runs (0 on the CPU).
  double simulated_seconds() const { return simulated_seconds_; }
  int64_t steps() const { return steps_; }

 private:
  LibraryTrainer(const tensorflow_ipu::Scope& root, const MlpWeights& initial,
                 int64_t steps, const LibraryTrainOptions& options)
      : root_(root), initial_(initial), steps_(steps), options_(options) {}

  // Micro-batches per step (pipelined or accumulated), at least 1.
  int MicroBatches() const {
    return std::max({options_.pipeline_micro_batches, options_.accumulation_micro_batches, 1});
  }
  absl::Status BuildVariables(const tensorflow_ipu::Scope& scope);
  // kIpuLoop: the program of one Run of `steps` steps.
  absl::StatusOr<tensorflow_ipu::Operation> BuildIpuProgram(
      const tensorflow_ipu::Scope& ipu, int steps, const tensorflow_ipu::ipu::IPUInfeedQueue& infeed,
      tensorflow_ipu::ipu::IPUOutfeedQueue& outfeed);
  absl::Status BuildIpuLoops(const ImageSet& set);
  absl::Status BuildCpuStep(const ImageSet& set);
  // One Run of the loop `loop`, adding its simulated time.
  struct IpuLoop;
  absl::Status RunLoop(IpuLoop& loop);
  absl::StatusOr<std::vector<float>> TrainIpu();
  absl::StatusOr<std::vector<float>> TrainCpu(int64_t steps);

  tensorflow_ipu::Scope root_;
  MlpWeights initial_;
  int64_t steps_;
  LibraryTrainOptions options_;
  double simulated_seconds_ = 0;

  // w1, b1, w2, b2, ...
  std::vector<tensorflow_ipu::Variable> vars_;
  std::vector<tensorflow_ipu::Output> var_values_;
  std::vector<tensorflow_ipu::Operation> var_initializers_;
  // Every variable's initializer (pipelined: the accumulators as well).
  tensorflow_ipu::Operation state_initializer_;

  // kIpuLoop: a loop of steps_per_run steps and one of the remainder (if
  // any), each with its outfeed (an outfeed is enqueued by one loop) and
  // its dequeued losses, and the infeed's initializer.
  struct IpuLoop {
    tensorflow_ipu::Operation op;
    tensorflow_ipu::Output losses;
    bool filled = false;  // it ran since its outfeed was last dequeued
  };
  IpuLoop full_loop_;
  IpuLoop remainder_loop_;
  tensorflow_ipu::Operation infeed_init_;

  // kCpu: the placeholders, the step's loss and update, the batches.
  tensorflow_ipu::Output images_;
  tensorflow_ipu::Output labels_;
  tensorflow_ipu::Output loss_;
  tensorflow_ipu::Operation train_op_;
  std::vector<tensorflow_ipu::Tensor> image_batches_;
  std::vector<tensorflow_ipu::Tensor> label_batches_;

  std::unique_ptr<tensorflow_ipu::ClientSession> session_;
};

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_LIBRARY_TRAIN_H_
