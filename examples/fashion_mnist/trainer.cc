#include "examples/fashion_mnist/trainer.h"

#include <atomic>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/global_step.h"

namespace tensorflow_ipu {
namespace examples {
namespace {

// Feed names are process-wide; each trainer gets its own.
std::string UniqueFeedName(const std::string& base) {
  static std::atomic<int> next{0};
  return absl::StrCat(base, "_", next++);
}

// A compile() function's or loop body's error, recorded on its scope (the
// first error wins and compile() returns it).
template <typename T>
bool Record(const Scope& scope, const absl::StatusOr<T>& r) {
  if (!r.ok()) scope.UpdateStatus(r.status());
  return r.ok();
}

}  // namespace

double TrainStats::mean_loss() const {
  if (losses.empty()) return 0;
  return std::accumulate(losses.begin(), losses.end(), 0.0) / losses.size();
}

absl::StatusOr<std::unique_ptr<MlpTrainer>> MlpTrainer::Create(
    const LabelledImages& train, const LabelledImages& test,
    const TrainerOptions& options) {
  if (options.batch_size < 1 || options.eval_batch_size < 1 ||
      options.steps_per_run < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_size (", options.batch_size, "), eval_batch_size (",
        options.eval_batch_size, ") and steps_per_run (", options.steps_per_run,
        ") must be at least 1"));
  }
  if (train.count() < options.batch_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("the training set has ", train.count(),
                     " images, fewer than one batch of ", options.batch_size));
  }
  if (test.count() == 0 || test.count() % options.eval_batch_size != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the ", test.count(), " test images do not divide into evaluation "
        "batches of ", options.eval_batch_size, " (",
        test.count() % options.eval_batch_size, " left over); choose an "
        "eval_batch_size that divides the test set"));
  }

  std::unique_ptr<MlpTrainer> t(new MlpTrainer(Scope::NewRootScope()));
  t->options_ = options;
  t->batches_per_epoch_ = train.count() / options.batch_size;
  t->test_examples_ = test.count();
  const Scope& root = t->root_;
  Scope cpu = root.WithDevice("cpu");
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");

  // The tutorial's advice: global_step on the host, so that its increment
  // does not become a second IPU executable.
  ASSIGN_OR_RETURN(t->global_step_, train::get_or_create_global_step(cpu));
  t->global_step_value_ = t->global_step_.value(cpu);
  ASSIGN_OR_RETURN(MlpParams params, CreateMlpParams(ipu, options.seed));

  // Training: shuffled batches of (images, labels), reshuffled each epoch.
  ASSIGN_OR_RETURN(data::Dataset train_set,
                   data::Dataset::FromTensorSlices({train.images, train.labels}));
  train_set = train_set.Shuffle(train.count(), static_cast<uint64_t>(options.seed))
                  .Batch(options.batch_size, /*drop_remainder=*/true)
                  .Repeat()
                  .Prefetch(options.steps_per_run);
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue train_feed,
                   ipu::IPUInfeedQueue::Create(
                       train_set, UniqueFeedName("fashion_mnist_train")));
  ipu::IPUOutfeedQueue loss_feed(UniqueFeedName("fashion_mnist_loss"));
  const Variable* global_step = &t->global_step_;
  ASSIGN_OR_RETURN(
      std::vector<Output> train_loop,
      ipu::ipu_compiler::compile(
          ipu,
          [&](const Scope& s, const std::vector<Output>&) {
            auto body = [&](const Scope& b, const std::vector<Output>&,
                            const std::vector<Output>& batch) {
              absl::StatusOr<MlpStep> step =
                  BuildMlpTrainingStep(b, params, batch[0], batch[1],
                                       options.learning_rate, global_step);
              if (Record(b, step)) loss_feed.enqueue(b, {step->loss});
              return std::vector<Output>{};
            };
            absl::StatusOr<std::vector<Output>> loop = ipu::loops::repeat(
                s, options.steps_per_run, body, {}, &train_feed);
            return Record(s, loop) ? *loop : std::vector<Output>{};
          },
          {}));
  t->train_loop_ = train_loop[0].op();
  t->train_feed_init_ = train_feed.initializer(root);
  t->losses_ = loss_feed.dequeue(root)[0];

  // Evaluation: the test set in order, once per Run.
  ASSIGN_OR_RETURN(data::Dataset test_set,
                   data::Dataset::FromTensorSlices({test.images, test.labels}));
  test_set = test_set.Batch(options.eval_batch_size, /*drop_remainder=*/true);
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue test_feed,
                   ipu::IPUInfeedQueue::Create(
                       test_set, UniqueFeedName("fashion_mnist_test")));
  ipu::IPUOutfeedQueue logits_feed(UniqueFeedName("fashion_mnist_logits"));
  const int eval_steps = static_cast<int>(test.count() / options.eval_batch_size);
  ASSIGN_OR_RETURN(
      std::vector<Output> eval_loop,
      ipu::ipu_compiler::compile(
          ipu,
          [&](const Scope& s, const std::vector<Output>&) {
            auto body = [&](const Scope& b, const std::vector<Output>&,
                            const std::vector<Output>& batch) {
              logits_feed.enqueue(b, {MlpLogits(b, params, batch[0]), batch[1]});
              return std::vector<Output>{};
            };
            absl::StatusOr<std::vector<Output>> loop =
                ipu::loops::repeat(s, eval_steps, body, {}, &test_feed);
            return Record(s, loop) ? *loop : std::vector<Output>{};
          },
          {}));
  t->eval_loop_ = eval_loop[0].op();
  t->eval_feed_init_ = test_feed.initializer(root);
  // The argmax and the count run on the host: ArgMax has no IPU lowering.
  std::vector<Output> dequeued = logits_feed.dequeue(root);
  RETURN_IF_ERROR(root.status());
  Output logits = ops::Reshape(cpu, dequeued[0], {-1, kFashionMnistClasses});
  Output labels = ops::Reshape(cpu, dequeued[1], {-1});
  Output predicted = ops::ArgMax(cpu, logits, 1, ops::ArgMax::OutputType(DT_INT32));
  t->eval_correct_ = ops::Sum(
      cpu, ops::Cast(cpu, ops::Equal(cpu, predicted, labels), DT_FLOAT), {0});
  t->eval_count_ = ops::Size(cpu, labels);

  Operation init = global_variables_initializer(root);
  RETURN_IF_ERROR(root.status());
  t->session_ = std::make_unique<ClientSession>(root);
  RETURN_IF_ERROR(t->session_->Run({}, {}, {init, t->train_feed_init_}, nullptr));
  return t;
}

absl::StatusOr<TrainStats> MlpTrainer::Train(int runs) {
  TrainStats stats;
  for (int r = 0; r < runs; ++r) {
    RunMetadata metadata;
    RETURN_IF_ERROR(session_->Run(RunOptions(), {}, {}, {train_loop_}, nullptr,
                                  &metadata));
    const IpuRunProfile& p = metadata.ipu_profile;
    stats.simulated_seconds += p.total_seconds;
    stats.engine_switches += p.engine_switches;
  }
  if (runs > 0) {
    std::vector<Tensor> out;
    RETURN_IF_ERROR(session_->Run({losses_}, &out));
    const Tensor& losses = out[0];
    stats.losses.assign(losses.data<float>(),
                        losses.data<float>() + losses.NumElements());
  }
  return stats;
}

absl::StatusOr<EvalStats> MlpTrainer::Evaluate() {
  EvalStats stats;
  RETURN_IF_ERROR(session_->Run({}, {}, {eval_feed_init_}, nullptr));
  RunMetadata metadata;
  RETURN_IF_ERROR(session_->Run(RunOptions(), {}, {}, {eval_loop_}, nullptr,
                                &metadata));
  stats.simulated_seconds = metadata.ipu_profile.total_seconds;
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session_->Run({eval_correct_, eval_count_}, &out));
  stats.correct = static_cast<int64_t>(out[0].data<float>()[0]);
  stats.examples = out[1].data<int32_t>()[0];
  if (stats.examples != test_examples_) {
    return absl::InternalError(absl::StrCat("evaluated ", stats.examples,
                                            " test images instead of ",
                                            test_examples_));
  }
  stats.accuracy = static_cast<double>(stats.correct) / stats.examples;
  return stats;
}

absl::StatusOr<int64_t> MlpTrainer::GlobalStep() {
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session_->Run({global_step_value_}, &out));
  return out[0].data<int64_t>()[0];
}

}  // namespace examples
}  // namespace tensorflow_ipu
