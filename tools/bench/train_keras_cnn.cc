// train_keras_cnn: the seed tutorial's CNN (keras_cnn.h; SGD lr 0.01,
// categorical cross-entropy, batch 64) trained for one epoch of
// Fashion-MNIST (batches in file order) with keras::Model::fit on the
// simulated IPU (IPUStrategy, steps_per_execution = the whole epoch),
// against the same model in libtorch from the same initial weights, in the
// same run (issue 16). Prints host steps/s, the ratio to libtorch, GFLOP/s
// and the share of the machine's GEMM peak, the simulated IPU time per
// step, and fit's own host overhead: the share of fit's wall time spent
// outside the Session::Run of the training program.
//
//   bazel run -c opt //tools/bench:train_keras_cnn [-- --train_limit=6400 --repeats=3]
//
// The Keras row's time is the whole fit call: it builds the training
// program into the model's graph, compiles it (in its first Session::Run),
// runs the epoch as one execution, and reads the outfeed.
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/ipu/ipu_strategy.h"
#include "tensorflow_ipu/keras/initializers.h"
#include "tensorflow_ipu/keras/layers/conv2d.h"
#include "tensorflow_ipu/keras/layers/dense.h"
#include "tensorflow_ipu/keras/layers/dropout.h"
#include "tensorflow_ipu/keras/layers/flatten.h"
#include "tensorflow_ipu/keras/layers/input_layer.h"
#include "tensorflow_ipu/keras/layers/max_pooling2d.h"
#include "tensorflow_ipu/keras/model.h"
#include "tensorflow_ipu/keras/utils/np_utils.h"
#include "tools/bench/bench_flags.h"
#include "tools/bench/contest.h"
#include "tools/bench/fashion_mnist.h"
#include "tools/bench/gemm_peak.h"
#include "tools/bench/ipu_setup.h"
#include "tools/bench/keras_cnn.h"
#include "tools/bench/machine_info.h"
#include "tools/bench/peer_env.h"
#include "tools/bench/stopwatch.h"
#include "tools/bench/table.h"
#include "tools/bench/torch_cnn.h"
#include "tools/bench/torch_peer.h"

ABSL_FLAG(int64_t, train_limit, 0,
          "training images used (0: all 60,000), trimmed to a multiple of the batch; "
          "--steps, when given, wins");

namespace tfipu_bench {
namespace {

namespace tfipu = ::tensorflow_ipu;
namespace keras = ::tensorflow_ipu::keras;
namespace layers = keras::layers;

constexpr int kBatch = 64;
constexpr float kLearningRate = 0.01f;
constexpr int64_t kSeed = 1;

// The seed's model_fn.
absl::StatusOr<std::shared_ptr<keras::Model>> KerasCnn() {
  keras::KerasTensor in = keras::Input({28, 28, 1});
  keras::KerasTensor x = layers::Conv2D(32, {3, 3}, {.activation = "relu"})(in);
  x = layers::MaxPooling2D({2, 2})(x);
  x = layers::Conv2D(64, {3, 3}, {.activation = "relu"})(x);
  x = layers::MaxPooling2D({2, 2})(x);
  x = layers::Flatten()(x);
  x = layers::Dropout(0.5)(x);
  x = layers::Dense(10, {.activation = "softmax"})(x);
  return keras::Model::Create(in, x);
}

// Keras's glorot_uniform kernels and zero biases at the seed, from a model
// built on the CPU: every contestant starts from these.
absl::StatusOr<CnnWeights> InitialWeights() {
  keras::utils::set_random_seed(kSeed);
  ASSIGN_OR_RETURN(std::shared_ptr<keras::Model> model, KerasCnn());
  ASSIGN_OR_RETURN(std::vector<tfipu::Tensor> t, model->get_weights());
  CnnWeights w = ZeroCnnWeights();
  std::vector<std::vector<float>*> parts = {&w.conv1_kernel, &w.conv1_bias, &w.conv2_kernel,
                                            &w.conv2_bias,   &w.dense_kernel, &w.dense_bias};
  if (t.size() != parts.size()) {
    return absl::InternalError(absl::StrCat("the model has ", t.size(), " weights, not 6"));
  }
  for (size_t i = 0; i < t.size(); ++i) {
    if (static_cast<size_t>(t[i].NumElements()) != parts[i]->size()) {
      return absl::InternalError(absl::StrCat("weight ", i, " has ", t[i].NumElements(),
                                              " elements, not ", parts[i]->size()));
    }
    parts[i]->assign(t[i].data<float>(), t[i].data<float>() + t[i].NumElements());
  }
  return w;
}

absl::StatusOr<std::vector<tfipu::Tensor>> KerasWeights(const CnnWeights& w) {
  const std::vector<std::vector<int64_t>> shapes = {{3, 3, 1, 32}, {32}, {3, 3, 32, 64},
                                                    {64},          {1600, 10}, {10}};
  const std::vector<const std::vector<float>*> parts = {
      &w.conv1_kernel, &w.conv1_bias, &w.conv2_kernel, &w.conv2_bias, &w.dense_kernel,
      &w.dense_bias};
  std::vector<tfipu::Tensor> out;
  for (size_t i = 0; i < parts.size(); ++i) {
    ASSIGN_OR_RETURN(tfipu::Tensor t,
                     tfipu::Tensor::FromValues<float>(*parts[i], tfipu::TensorShape(shapes[i])));
    out.push_back(std::move(t));
  }
  return out;
}

struct KerasSplit {
  tfipu::Tensor x, y;  // [n, 28, 28, 1] and one-hot [n, 10]
};

// The first `batches` whole batches of `set`.
absl::StatusOr<KerasSplit> KerasData(const ImageSet& set, int64_t batches) {
  const int64_t n = batches * kBatch;
  std::vector<float> pixels(set.images.begin(), set.images.begin() + n * set.pixels);
  std::vector<int32_t> labels(set.labels.begin(), set.labels.begin() + n);
  KerasSplit s;
  ASSIGN_OR_RETURN(s.x, tfipu::Tensor::FromValues<float>(pixels, tfipu::TensorShape({n, 28, 28, 1})));
  ASSIGN_OR_RETURN(tfipu::Tensor l, tfipu::Tensor::FromValues<int32_t>(labels, tfipu::TensorShape({n})));
  ASSIGN_OR_RETURN(s.y, keras::utils::to_categorical(l, 10));
  return s;
}

// The library's contestants: compile(SGD(0.01), categorical_crossentropy,
// accuracy, steps_per_execution = steps) on the simulated IPU (inside
// IPUStrategy's scope) or, as the tutorial's CPU baseline, the same program
// on the CPU executor (outside it); then the timed fit of one epoch (no
// shuffle: the peer's batches, in file order).
absl::StatusOr<Outcome> KerasFit(const CnnWeights& weights, const FashionMnist& data,
                                 int64_t steps, int threads, bool on_ipu) {
  if (steps < 1 || steps > data.train.num_batches(kBatch)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "steps = ", steps, ": the set has ", data.train.num_batches(kBatch), " batches"));
  }
  ASSIGN_OR_RETURN(KerasSplit train, KerasData(data.train, steps));
  ASSIGN_OR_RETURN(KerasSplit test, KerasData(data.test, data.test.num_batches(kBatch)));
  ASSIGN_OR_RETURN(std::vector<tfipu::Tensor> initial, KerasWeights(weights));
  keras::set_intra_op_parallelism_threads(threads);
  tfipu::ipu::ipu_strategy::IPUStrategy strategy;
  std::optional<tfipu::ipu::ipu_strategy::StrategyScope> scope;
  if (on_ipu) scope.emplace(&strategy);
  keras::utils::set_random_seed(kSeed);
  ASSIGN_OR_RETURN(std::shared_ptr<keras::Model> model, KerasCnn());
  if (model->on_ipu() != on_ipu) {
    return absl::InternalError(on_ipu ? "the model is not on the IPU" : "the model is on the IPU");
  }
  RETURN_IF_ERROR(model->set_weights(initial));
  const keras::optimizers::Optimizer sgd = keras::optimizers::SGD(kLearningRate);
  RETURN_IF_ERROR(model->compile(sgd, "categorical_crossentropy", {"accuracy"}, steps));
  Stopwatch sw;
  absl::StatusOr<keras::callbacks::History> history =
      model->fit(train.x, train.y, {.epochs = 1, .batch_size = kBatch, .verbose = 0,
                                    .shuffle = false});
  const double fit_seconds = sw.Seconds();
  RETURN_IF_ERROR(history.status());
  const double run_seconds = model->last_session_run_seconds();
  const double simulated = model->last_simulated_seconds();
  // Test accuracy, untimed: evaluation in one execution.
  RETURN_IF_ERROR(model->compile(sgd, "categorical_crossentropy", {"accuracy"},
                                 data.test.num_batches(kBatch)));
  ASSIGN_OR_RETURN(std::vector<double> scores,
                   model->evaluate(test.x, test.y, {.batch_size = kBatch, .verbose = 0}));
  keras::set_intra_op_parallelism_threads(0);
  Outcome o;
  o.seconds = fit_seconds;
  o.steps = steps;
  o.checks = {{"epoch loss", history->history["loss"][0], kCnnEpochLossTolerance},
              {"test accuracy", scores[1], kCnnTestAccuracyTolerance}};
  const double outside = fit_seconds - run_seconds;
  o.note = absl::StrCat(
      threads, threads == 1 ? " thread" : " threads", "; fit ",
      absl::StrFormat("%.2f", fit_seconds), " s, of it in Session::Run of the training program ",
      absl::StrFormat("%.2f", run_seconds), " s (compilation included); fit's own host overhead ",
      absl::StrFormat("%.1f%%", 100 * outside / fit_seconds), " (",
      FormatNumber(outside * 1e6 / steps), " us/step)");
  if (on_ipu) {
    absl::StrAppend(&o.note, "; simulated IPU time ", FormatNumber(simulated * 1e6 / steps),
                    " us/step (simulated, not host)");
  } else {
    absl::StrAppend(&o.note, "; the CPU executor");
  }
  return o;
}

int Main(int argc, char** argv) {
  ReexecWithPeerEnvironment(argc, argv);
  ParseBenchFlags(argc, argv,
                  "train_keras_cnn: the Keras tutorial's CNN, one epoch of Fashion-MNIST, "
                  "keras::Model::fit on the simulated IPU vs libtorch");
  const int threads = BenchThreads();
  absl::StatusOr<FashionMnist> data = LoadFashionMnist();
  if (!data.ok()) {
    std::cerr << "train_keras_cnn: " << data.status() << "\n";
    return 1;
  }
  if (absl::Status s = ConfigureBenchIpus(1); !s.ok()) {
    std::cerr << "train_keras_cnn: " << s << "\n";
    return 1;
  }
  absl::StatusOr<CnnWeights> weights = InitialWeights();
  if (!weights.ok()) {
    std::cerr << "train_keras_cnn: " << weights.status() << "\n";
    return 1;
  }
  const int64_t limit = absl::GetFlag(FLAGS_train_limit);
  const int64_t images = limit > 0 && limit < data->train.count ? limit : data->train.count;
  ContestOptions options = ContestOptionsFromFlags(images / kBatch);

  Contest contest(
      absl::StrCat("train_keras_cnn: the Keras tutorial's CNN (", CnnParamCount(*weights),
                   " weights), SGD lr 0.01, batch ", kBatch, ", ", options.steps,
                   " steps of Fashion-MNIST"),
      Metric::kStepsPerSecond);
  contest.Add({"libtorch", /*peer=*/true, [&](int64_t steps) {
                 return TorchTrainCnn(*weights, *data, kBatch, steps, kLearningRate, threads);
               }});
  if (threads > 1) {
    // The best peer is the fastest at any thread count (PEERS.md).
    contest.Add({"libtorch-1thread", /*peer=*/true, [&](int64_t steps) {
                   return TorchTrainCnn(*weights, *data, kBatch, steps, kLearningRate, 1);
                 }});
  }
  contest.Add({"tfipu-keras-fit", /*peer=*/false, [&](int64_t steps) {
                 return KerasFit(*weights, *data, steps, threads, /*on_ipu=*/true);
               }});
  contest.Add({"tfipu-keras-fit-cpu", /*peer=*/false, [&](int64_t steps) {
                 return KerasFit(*weights, *data, steps, threads, /*on_ipu=*/false);
               }});

  contest.SetWork(CnnTrainingFlops(kBatch));
  contest.SetPeak(BestGemmPeak(
      {MeasureEigenGemm(threads), MeasureDnnlGemm(threads), MeasureTorchGemm(threads)}));
  SetTorchThreads(threads);
  std::cout << MachineSummary() << TorchSummary() << "\n" << IpuSummary() << "\n"
            << "Work counted: the multiply-adds x 2 of both convolutions and the dense "
               "layer, forward, weight gradients, and input gradients of all but the first "
               "layer (keras_cnn.h)\n\n";
  return RunAndReport(contest, options);
}

}  // namespace
}  // namespace tfipu_bench

int main(int argc, char** argv) { return tfipu_bench::Main(argc, argv); }
