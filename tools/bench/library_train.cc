#include "tools/bench/library_train.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/initializers.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/pipelining/pipelining_ops.h"
#include "tensorflow_ipu/runtime/session.h"
#include "tensorflow_ipu/train/cross_replica_optimizer.h"
#include "tensorflow_ipu/train/gradient_accumulation_optimizer.h"
#include "tensorflow_ipu/train/gradient_descent.h"

namespace tfipu_bench {
namespace {

namespace tfipu = tensorflow_ipu;
namespace ops = tensorflow_ipu::ops;

// Feed names are process-wide (the runtime's feed registry); each trainer,
// and each repeat of a benchmark, gets its own.
std::string UniqueFeedName(const std::string& base) {
  static std::atomic<int> next{0};
  return absl::StrCat(base, "_", next++);
}

// A compile() function's or loop body's error goes on its scope: they
// return Outputs, and compile() returns the scope's first error.
template <typename T>
bool Record(const tfipu::Scope& scope, const absl::StatusOr<T>& r) {
  if (!r.ok()) scope.UpdateStatus(r.status());
  return r.ok();
}

tfipu::Tensor FloatTensor(const float* data, tfipu::TensorShape shape) {
  tfipu::Tensor t(tfipu::DT_FLOAT, shape);
  std::memcpy(t.data<float>(), data, sizeof(float) * t.NumElements());
  return t;
}

tfipu::Tensor Int32Tensor(const int32_t* data, int64_t n) {
  tfipu::Tensor t(tfipu::DT_INT32, tfipu::TensorShape({n}));
  std::memcpy(t.data<int32_t>(), data, sizeof(int32_t) * n);
  return t;
}

struct Step {
  tfipu::Output loss;
  tfipu::Operation train;
};

// One SGD step on a batch: the forward pass as tf.layers.dense builds it,
// the mean cross-entropy, and minimize. Each variable is read once, so the
// forward and backward passes see the same weights and every update
// follows every read.
// Layers [first, last) of the MLP applied to `h` (Relu after all but the
// MLP's last layer).
tfipu::Output Dense(const tfipu::Scope& scope, const std::vector<tfipu::Variable>& vars,
                    tfipu::Output h, size_t first, size_t last) {
  const size_t layers = vars.size() / 2;
  for (size_t k = first; k < last; ++k) {
    const tfipu::Scope layer = scope.NewSubScope(absl::StrCat("dense", k + 1));
    h = ops::BiasAdd(layer, ops::MatMul(layer, h, vars[2 * k].value(layer)),
                     vars[2 * k + 1].value(layer));
    if (k + 1 < layers) h = ops::Relu(layer, h);
  }
  return h;
}

tfipu::Output MeanCrossEntropy(const tfipu::Scope& scope, tfipu::Output logits,
                               tfipu::Output labels) {
  const tfipu::Scope loss_scope = scope.NewSubScope("loss");
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(loss_scope, logits, labels);
  return ops::Mean(loss_scope, xent.loss, {0});
}

absl::StatusOr<Step> BuildStep(const tfipu::Scope& scope,
                               const std::vector<tfipu::Variable>& vars,
                               tfipu::Output images, tfipu::Output labels,
                               tfipu::train::Optimizer& optimizer) {
  Step step;
  step.loss = MeanCrossEntropy(scope, Dense(scope, vars, images, 0, vars.size() / 2), labels);
  RETURN_IF_ERROR(scope.status());
  ASSIGN_OR_RETURN(step.train, optimizer.minimize(scope, step.loss, nullptr, vars));
  RETURN_IF_ERROR(scope.status());
  return step;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LibraryTrainer>> LibraryTrainer::Create(
    const MlpWeights& initial, const ImageSet& set, int64_t steps,
    const LibraryTrainOptions& options) {
  if (steps < 1 || options.batch < 1 || options.steps_per_run < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "steps (", steps, "), batch (", options.batch, ") and steps_per_run (",
        options.steps_per_run, ") must be at least 1"));
  }
  if (steps > set.num_batches(options.batch)) {
    return absl::InvalidArgumentError(
        absl::StrCat("steps = ", steps, ": the set has ",
                     set.num_batches(options.batch), " batches of ", options.batch));
  }
  const int micro_batches = std::max(options.pipeline_micro_batches,
                                     options.accumulation_micro_batches);
  if (options.pipeline_micro_batches > 0 && options.accumulation_micro_batches > 0) {
    return absl::InvalidArgumentError(
        "pipeline_micro_batches and accumulation_micro_batches exclude each other");
  }
  if (options.replicas < 1 || options.batch % options.replicas != 0 ||
      options.pipeline_micro_batches < 0 || options.accumulation_micro_batches < 0 ||
      (micro_batches > 0 && options.batch % (options.replicas * micro_batches) != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a batch of ", options.batch, " does not split over ", options.replicas,
        " replica(s) and ", micro_batches, " micro-batch(es)"));
  }
  if (options.pipeline_micro_batches > 0 && initial.layers.size() < 2) {
    return absl::InvalidArgumentError("a pipelined MLP needs at least two layers");
  }
  if (initial.layers.empty() || initial.layers[0].in != set.pixels) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the MLP's input width (",
        initial.layers.empty() ? 0 : initial.layers[0].in,
        ") is not the set's pixels per image (", set.pixels, ")"));
  }
  std::unique_ptr<LibraryTrainer> t(
      new LibraryTrainer(tfipu::Scope::NewRootScope(), initial, steps, options));
  if (options.device == LibraryTrainDevice::kIpuLoop) {
    RETURN_IF_ERROR(t->BuildVariables(tfipu::ipu::scopes::ipu_scope(t->root_, "/device:IPU:0")));
    RETURN_IF_ERROR(t->BuildIpuLoops(set));
  } else {
    RETURN_IF_ERROR(t->BuildVariables(t->root_.WithDevice("cpu")));
    RETURN_IF_ERROR(t->BuildCpuStep(set));
  }
  RETURN_IF_ERROR(t->root_.status());
  if (options.pipeline_micro_batches > 0 || options.accumulation_micro_batches > 0) {
    t->state_initializer_ = tfipu::global_variables_initializer(t->root_);
  }
  tfipu::SessionOptions session_options;
  session_options.num_threads = options.num_threads;
  t->session_ = std::make_unique<tfipu::ClientSession>(t->root_, session_options);
  RETURN_IF_ERROR(t->Reset());
  return t;
}

absl::Status LibraryTrainer::BuildVariables(const tfipu::Scope& scope) {
  for (size_t k = 0; k < initial_.layers.size(); ++k) {
    const DenseLayer& l = initial_.layers[k];
    // Pipelined: the first layer's variables on IPU 0, the others on IPU 1.
    const tfipu::Scope on = options_.pipeline_micro_batches > 0
                                ? tfipu::ipu::scopes::ipu_shard(scope, k == 0 ? 0 : 1)
                                : scope;
    tfipu::VariableScope vs(on, absl::StrCat("mlp/dense_", k + 1));
    ASSIGN_OR_RETURN(
        tfipu::Variable w,
        vs.get_variable("kernel", {l.in, l.out}, tfipu::DT_FLOAT,
                        tfipu::initializers::Value(
                            FloatTensor(l.w.data(), tfipu::TensorShape({l.in, l.out})))));
    ASSIGN_OR_RETURN(
        tfipu::Variable b,
        vs.get_variable("bias", {l.out}, tfipu::DT_FLOAT,
                        tfipu::initializers::Value(
                            FloatTensor(l.b.data(), tfipu::TensorShape({l.out})))));
    for (const tfipu::Variable& v : {w, b}) {
      vars_.push_back(v);
      var_initializers_.push_back(v.initializer());
      // Reads run where the variable lives, outside any compiled cluster.
      var_values_.push_back(v.value(root_.NewSubScope("read")));
    }
  }
  return root_.status();
}

absl::Status LibraryTrainer::BuildIpuLoops(const ImageSet& set) {
  const int64_t rows = steps_ * options_.batch;
  ASSIGN_OR_RETURN(
      tfipu::data::Dataset dataset,
      tfipu::data::Dataset::FromTensorSlices(
          {FloatTensor(set.images.data(), tfipu::TensorShape({rows, set.pixels})),
           Int32Tensor(set.labels.data(), rows)}));
  // File order, no shuffle: every contestant sees batch k at step k. An
  // infeed element is what one replica takes in one iteration: a step's
  // batch split over the replicas, or a pipeline's micro-batch.
  const int per_element = options_.batch / options_.replicas / MicroBatches();
  dataset = dataset.Batch(per_element, /*drop_remainder=*/true);
  ASSIGN_OR_RETURN(tfipu::ipu::IPUInfeedQueue infeed,
                   tfipu::ipu::IPUInfeedQueue::Create(dataset, UniqueFeedName("bench_train")));
  const tfipu::Scope ipu = tfipu::ipu::scopes::ipu_scope(root_, "/device:IPU:0");
  const int64_t full = steps_ / options_.steps_per_run;
  const int remainder = static_cast<int>(steps_ % options_.steps_per_run);
  // An outfeed is enqueued by one loop: each loop has its own.
  auto build = [&](int loop_steps, IpuLoop* loop) -> absl::Status {
    tfipu::ipu::IPUOutfeedQueue outfeed(UniqueFeedName("bench_loss"));
    ASSIGN_OR_RETURN(loop->op, BuildIpuProgram(ipu, loop_steps, infeed, outfeed));
    std::vector<tfipu::Output> dequeued = outfeed.dequeue(root_);
    if (dequeued.empty()) return root_.status();
    loop->losses = dequeued[0];
    return absl::OkStatus();
  };
  if (full > 0) RETURN_IF_ERROR(build(options_.steps_per_run, &full_loop_));
  if (remainder > 0) RETURN_IF_ERROR(build(remainder, &remainder_loop_));
  infeed_init_ = infeed.initializer(root_);
  return root_.status();
}

absl::StatusOr<tfipu::Operation> LibraryTrainer::BuildIpuProgram(
    const tfipu::Scope& ipu, int steps, const tfipu::ipu::IPUInfeedQueue& infeed,
    tfipu::ipu::IPUOutfeedQueue& outfeed) {
  const int micro_batches = options_.pipeline_micro_batches;
  // Replicas average their gradients before the SGD step.
  tfipu::train::GradientDescentOptimizer sgd(options_.learning_rate);
  tfipu::train::CrossReplicaOptimizer averaged(sgd);
  tfipu::train::Optimizer& replicated =
      options_.replicas > 1 ? static_cast<tfipu::train::Optimizer&>(averaged) : sgd;
  // The pipeline's accumulation on one IPU: one update per step.
  tfipu::train::GradientAccumulationOptimizerV2 accumulated(
      replicated, std::max(options_.accumulation_micro_batches, 1),
      tfipu::train::GradientAccumulationReductionMethod::MEAN);
  tfipu::train::Optimizer& optimizer =
      options_.accumulation_micro_batches > 0
          ? static_cast<tfipu::train::Optimizer&>(accumulated)
          : replicated;
  const size_t layers = vars_.size() / 2;
  ASSIGN_OR_RETURN(
      std::vector<tfipu::Output> program,
      tfipu::ipu::ipu_compiler::compile(
          ipu,
          [&](const tfipu::Scope& s, const std::vector<tfipu::Output>&) {
            if (micro_batches > 0) {
              // One step = micro_batches micro-batches, their gradients
              // averaged; one outfeed record per step: the sum of their
              // mean losses.
              namespace pipelining = tfipu::ipu::pipelining_ops;
              pipelining::ComputationalStage first = [&](const tfipu::Scope& st,
                                                         const std::vector<tfipu::Output>& in) {
                return std::vector<tfipu::Output>{Dense(st, vars_, in[0], 0, 1), in[1]};
              };
              pipelining::ComputationalStage rest = [&](const tfipu::Scope& st,
                                                        const std::vector<tfipu::Output>& in) {
                return std::vector<tfipu::Output>{
                    MeanCrossEntropy(st, Dense(st, vars_, in[0], 1, layers), in[1])};
              };
              pipelining::PipelineOptions options;
              options.reduction_method = tfipu::train::GradientAccumulationReductionMethod::MEAN;
              options.accumulate_outfeed = true;
              absl::StatusOr<tfipu::Operation> op = pipelining::pipeline(
                  s, {first, rest}, micro_batches, steps, {}, &infeed, &outfeed,
                  [&](const tfipu::Scope&, const std::vector<tfipu::Output>& out) {
                    return pipelining::OptimizerFunctionOutput(optimizer, out[0]);
                  },
                  {0, 1}, pipelining::PipelineSchedule::Grouped, options);
              return Record(s, op) ? std::vector<tfipu::Output>{tfipu::Output(*op, 0)}
                                   : std::vector<tfipu::Output>{};
            }
            auto body = [&](const tfipu::Scope& b, const std::vector<tfipu::Output>&,
                            const std::vector<tfipu::Output>& batch) {
              absl::StatusOr<Step> step = BuildStep(b, vars_, batch[0], batch[1], optimizer);
              if (Record(b, step)) outfeed.enqueue(b, {step->loss});
              return std::vector<tfipu::Output>{};
            };
            absl::StatusOr<std::vector<tfipu::Output>> r = tfipu::ipu::loops::repeat(
                s, steps * std::max(options_.accumulation_micro_batches, 1), body, {}, &infeed);
            return Record(s, r) ? *r : std::vector<tfipu::Output>{};
          },
          {}));
  return program[0].op();
}

absl::Status LibraryTrainer::BuildCpuStep(const ImageSet& set) {
  const tfipu::Scope cpu = root_.WithDevice("cpu");
  const int64_t batch = options_.batch;
  images_ = ops::Placeholder(cpu.WithOpName("images"), tfipu::DT_FLOAT,
                             ops::Placeholder::Shape(tfipu::TensorShape({batch, set.pixels})));
  labels_ = ops::Placeholder(cpu.WithOpName("labels"), tfipu::DT_INT32,
                             ops::Placeholder::Shape(tfipu::TensorShape({batch})));
  tfipu::train::GradientDescentOptimizer sgd(options_.learning_rate);
  ASSIGN_OR_RETURN(Step step, BuildStep(cpu, vars_, images_, labels_, sgd));
  loss_ = step.loss;
  train_op_ = step.train;
  // The batches as tensors, made before any timing, as the peers read
  // theirs in place: an input pipeline's work is not what is measured.
  // Each is a slice of one tensor of the epoch's images, which the library
  // holds in huge pages as the benchmark holds the peers' (fashion_mnist.h).
  const tfipu::Tensor epoch =
      FloatTensor(set.batch_images(0, options_.batch),
                  tfipu::TensorShape({steps_ * batch, set.pixels}));
  image_batches_.reserve(steps_);
  label_batches_.reserve(steps_);
  for (int64_t s = 0; s < steps_; ++s) {
    ASSIGN_OR_RETURN(tfipu::Tensor images, epoch.Slice(s * batch, (s + 1) * batch));
    image_batches_.push_back(std::move(images));
    label_batches_.push_back(Int32Tensor(set.batch_labels(s, options_.batch), batch));
  }
  return root_.status();
}

absl::Status LibraryTrainer::Reset() {
  std::vector<tfipu::Operation> targets = var_initializers_;
  // The optimizer's and the pipeline's own state (accumulators) too.
  if (state_initializer_.valid()) targets.push_back(state_initializer_);
  if (infeed_init_.valid()) targets.push_back(infeed_init_);
  RETURN_IF_ERROR(session_->Run({}, {}, targets, nullptr));
  // Dequeuing an outfeed no loop has filled is an error, hence the flags.
  for (IpuLoop* loop : {&full_loop_, &remainder_loop_}) {
    if (!loop->filled) continue;
    std::vector<tfipu::Tensor> drained;
    RETURN_IF_ERROR(session_->Run({loop->losses}, &drained));
    loop->filled = false;
  }
  return absl::OkStatus();
}

absl::Status LibraryTrainer::WarmUp() {
  if (options_.device == LibraryTrainDevice::kIpuLoop) {
    // One Run of each loop compiles it and loads its engine.
    if (full_loop_.op.valid()) RETURN_IF_ERROR(RunLoop(full_loop_));
    if (remainder_loop_.op.valid()) RETURN_IF_ERROR(RunLoop(remainder_loop_));
  } else {
    RETURN_IF_ERROR(TrainCpu(std::min<int64_t>(options_.warmup_steps, steps_)).status());
  }
  return Reset();
}

absl::StatusOr<std::vector<float>> LibraryTrainer::Train() {
  simulated_seconds_ = 0;
  if (options_.device == LibraryTrainDevice::kIpuLoop) return TrainIpu();
  return TrainCpu(steps_);
}

absl::Status LibraryTrainer::RunLoop(IpuLoop& loop) {
  tfipu::RunMetadata metadata;
  RETURN_IF_ERROR(
      session_->Run(tfipu::RunOptions(), {}, {}, {loop.op}, nullptr, &metadata));
  loop.filled = true;
  simulated_seconds_ += metadata.ipu_profile.total_seconds;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> LibraryTrainer::TrainIpu() {
  const int64_t full = steps_ / options_.steps_per_run;
  for (int64_t r = 0; r < full; ++r) RETURN_IF_ERROR(RunLoop(full_loop_));
  if (remainder_loop_.op.valid()) RETURN_IF_ERROR(RunLoop(remainder_loop_));
  // [steps] losses, [steps, R] with replicas (each the mean loss of its
  // share of the batch), or per pipelined step the sum of its
  // micro-batches' mean losses: the full loop's steps, then the
  // remainder's.
  std::vector<float> losses;
  for (IpuLoop* loop : {&full_loop_, &remainder_loop_}) {
    if (!loop->filled) continue;
    std::vector<tfipu::Tensor> out;
    RETURN_IF_ERROR(session_->Run({loop->losses}, &out));
    loop->filled = false;
    losses.insert(losses.end(), out[0].data<float>(),
                  out[0].data<float>() + out[0].NumElements());
  }
  // With accumulation, [steps * M, R]: M records per step.
  const int64_t per_step =
      options_.replicas * std::max(options_.accumulation_micro_batches, 1);
  if (static_cast<int64_t>(losses.size()) != steps_ * per_step) {
    return absl::InternalError(absl::StrCat("the outfeeds gave ", losses.size(),
                                            " losses for ", steps_, " steps"));
  }
  const float scale = 1.f / static_cast<float>(options_.replicas * MicroBatches());
  std::vector<float> step_losses(steps_);
  for (int64_t i = 0; i < steps_; ++i) {
    float sum = 0;
    for (int64_t r = 0; r < per_step; ++r) sum += losses[i * per_step + r];
    step_losses[i] = sum * scale;
  }
  return step_losses;
}

absl::StatusOr<std::vector<float>> LibraryTrainer::TrainCpu(int64_t steps) {
  std::vector<float> losses;
  losses.reserve(steps);
  std::vector<tfipu::Tensor> out;
  for (int64_t s = 0; s < steps; ++s) {
    RETURN_IF_ERROR(session_->Run(
        {{images_, image_batches_[s]}, {labels_, label_batches_[s]}}, {loss_},
        {train_op_}, &out));
    losses.push_back(out[0].data<float>()[0]);
  }
  return losses;
}

absl::StatusOr<MlpWeights> LibraryTrainer::Weights() const {
  std::vector<tfipu::Tensor> out;
  RETURN_IF_ERROR(session_->Run(var_values_, &out));
  MlpWeights w = initial_;
  for (size_t k = 0; k < w.layers.size(); ++k) {
    DenseLayer& l = w.layers[k];
    const tfipu::Tensor& kernel = out[2 * k];
    const tfipu::Tensor& bias = out[2 * k + 1];
    l.w.assign(kernel.data<float>(), kernel.data<float>() + kernel.NumElements());
    l.b.assign(bias.data<float>(), bias.data<float>() + bias.NumElements());
  }
  return w;
}

}  // namespace tfipu_bench
