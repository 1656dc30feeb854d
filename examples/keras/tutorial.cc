#include "examples/keras/tutorial.h"

#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "examples/fashion_mnist/fashion_mnist_data.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/ipu_strategy.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/keras/initializers.h"
#include "tensorflow_ipu/keras/layers/conv2d.h"
#include "tensorflow_ipu/keras/layers/dense.h"
#include "tensorflow_ipu/keras/layers/dropout.h"
#include "tensorflow_ipu/keras/layers/flatten.h"
#include "tensorflow_ipu/keras/layers/input_layer.h"
#include "tensorflow_ipu/keras/layers/max_pooling2d.h"
#include "tensorflow_ipu/keras/model.h"
#include "tensorflow_ipu/keras/pipeline_stage.h"
#include "tensorflow_ipu/keras/utils/np_utils.h"

namespace tensorflow_ipu {
namespace examples {
namespace {

namespace keras = ::tensorflow_ipu::keras;
namespace layers = keras::layers;

constexpr int64_t kNumClasses = 10;

// The seed's model_fn (and model_fn_pipelines: the same layers in two
// PipelineStage scopes).
absl::StatusOr<std::shared_ptr<keras::Model>> ModelFn(bool pipelined) {
  keras::KerasTensor input_layer = keras::Input({28, 28, 1});
  keras::KerasTensor x;
  {
    std::optional<ipu::keras::PipelineStage> stage;
    if (pipelined) stage.emplace(0);
    x = layers::Conv2D(32, {3, 3}, {.activation = "relu"})(input_layer);
    x = layers::MaxPooling2D({2, 2})(x);
    x = layers::Conv2D(64, {3, 3}, {.activation = "relu"})(x);
  }
  {
    std::optional<ipu::keras::PipelineStage> stage;
    if (pipelined) stage.emplace(1);
    x = layers::MaxPooling2D({2, 2})(x);
    x = layers::Flatten()(x);
    x = layers::Dropout(0.5)(x);
    x = layers::Dense(kNumClasses, {.activation = "softmax"})(x);
  }
  return keras::Model::Create(input_layer, x);
}

struct Split {
  Tensor x, y;
};

// Images as [n, 28, 28, 1], labels one-hot, trimmed to a multiple of
// `divisor` (the seed's make_divisible).
absl::StatusOr<Split> Prepare(const LabelledImages& images, int64_t divisor) {
  const int64_t n = images.count() - images.count() % divisor;
  if (n == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "only ", images.count(), " images: fewer than one execution's ", divisor));
  }
  std::vector<float> pixels(images.images.data<float>(),
                            images.images.data<float>() + n * kFashionMnistPixels);
  std::vector<int32_t> labels(images.labels.data<int32_t>(), images.labels.data<int32_t>() + n);
  Split s;
  ASSIGN_OR_RETURN(s.x, Tensor::FromValues<float>(pixels, TensorShape({n, 28, 28, 1})));
  ASSIGN_OR_RETURN(Tensor l, Tensor::FromValues<int32_t>(labels, TensorShape({n})));
  ASSIGN_OR_RETURN(s.y, keras::utils::to_categorical(l, kNumClasses));
  return s;
}

}  // namespace

absl::StatusOr<TutorialVariant> ParseTutorialVariant(const std::string& name) {
  if (name == "cpu") return TutorialVariant::kCpu;
  if (name == "ipu") return TutorialVariant::kIpu;
  if (name == "faster") return TutorialVariant::kFaster;
  if (name == "replicated") return TutorialVariant::kReplicated;
  if (name == "pipelining") return TutorialVariant::kPipelined;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown variant \"", name, "\": use cpu, ipu, faster, replicated or pipelining"));
}

absl::StatusOr<TutorialResult> RunTutorial(const TutorialOptions& o) {
  const TutorialVariant v = o.variant;
  const bool on_ipu = v != TutorialVariant::kCpu;
  const int num_ipus = v == TutorialVariant::kReplicated || v == TutorialVariant::kPipelined ? 2 : 1;
  const int64_t num_replicas = v == TutorialVariant::kReplicated ? 2 : 1;
  const int64_t accumulation = 8;
  // The seed's make_divisible for each variant.
  int64_t divisor = o.batch_size;
  if (v == TutorialVariant::kReplicated) divisor = o.batch_size * num_replicas;
  if (v == TutorialVariant::kPipelined) divisor = o.batch_size * num_replicas * accumulation;

  ASSIGN_OR_RETURN(FashionMnist data,
                   LoadFashionMnist(kFashionMnistDir, o.train_limit, o.test_limit));
  ASSIGN_OR_RETURN(Split train, Prepare(data.train, on_ipu ? divisor : 1));
  ASSIGN_OR_RETURN(Split test, Prepare(data.test, on_ipu ? divisor : 1));
  const int64_t train_len = train.x.dim_size(0), test_len = test.x.dim_size(0);

  if (on_ipu) {
    ipu::IpuSystem::Get().Reset();
    ipu::config::IPUConfig ipu_config;
    ipu_config.auto_select_ipus = num_ipus;
    RETURN_IF_ERROR(ipu_config.configure_ipu_system());
  }
  ipu::ipu_strategy::IPUStrategy strategy;
  std::optional<ipu::ipu_strategy::StrategyScope> scope;
  if (on_ipu) scope.emplace(&strategy);

  keras::utils::set_random_seed(o.seed);
  ASSIGN_OR_RETURN(std::shared_ptr<keras::Model> model,
                   ModelFn(v == TutorialVariant::kPipelined));
  int64_t train_spe = 1, test_spe = 1;
  switch (v) {
    case TutorialVariant::kCpu:
    case TutorialVariant::kIpu:
      break;
    case TutorialVariant::kFaster:
      train_spe = train_len / o.batch_size;
      test_spe = test_len / o.batch_size;
      break;
    case TutorialVariant::kReplicated:
      train_spe = train_len / (o.batch_size * num_replicas);
      test_spe = test_len / (o.batch_size * num_replicas);
      break;
    case TutorialVariant::kPipelined:
      RETURN_IF_ERROR(model->set_pipelining_options(
          accumulation, std::nullopt, ipu::pipelining_ops::PipelineSchedule::Grouped));
      train_spe = train_len / (o.batch_size * num_replicas);
      test_spe = test_len / (o.batch_size * num_replicas);
      break;
  }
  const keras::optimizers::Optimizer sgd = keras::optimizers::SGD(o.learning_rate);
  RETURN_IF_ERROR(model->compile(sgd, "categorical_crossentropy", {"accuracy"}, train_spe));
  model->set_show_ipu_time(o.show_ipu_time);
  if (o.verbose) model->summary();

  if (o.verbose) std::cout << "\nTraining" << std::endl;
  ASSIGN_OR_RETURN(keras::callbacks::History history,
                   model->fit(train.x, train.y,
                              {.epochs = o.epochs, .batch_size = o.batch_size,
                               .verbose = o.verbose}));
  TutorialResult r;
  r.losses = history.history["loss"];
  r.accuracies = history.history["accuracy"];
  r.steps_per_epoch = train_len / (o.batch_size * num_replicas);
  r.ipu_seconds_per_step = model->last_simulated_seconds() / (o.epochs * r.steps_per_epoch);
  r.profile = model->last_execution_profile().ToString();
  for (const IpuClusterProfile& c : model->last_execution_profile().clusters) {
    absl::StrAppend(&r.profile, "  ", c.cluster, ": compute ", c.compute_cycles,
                    " cycles, exchange ", c.exchange_cycles, ", inter-IPU ", c.inter_ipu_cycles,
                    ", total ", c.cycles, " (", c.seconds * 1e6, " us), host in ",
                    c.host_bytes_to_device, " B\n");
  }

  if (o.verbose) std::cout << "\nEvaluation" << std::endl;
  RETURN_IF_ERROR(model->compile(sgd, "categorical_crossentropy", {"accuracy"}, test_spe));
  ASSIGN_OR_RETURN(std::vector<double> scores,
                   model->evaluate(test.x, test.y,
                                   {.batch_size = o.batch_size, .verbose = o.verbose}));
  r.eval_loss = scores[0];
  r.eval_accuracy = scores[1];
  return r;
}

}  // namespace examples
}  // namespace tensorflow_ipu
