// A port of the vendor's TensorFlow 1 pipelining tutorial, step 2:
//   repository graphcore/tutorials,
//   path tutorials/tensorflow1/pipelining/answers/step2_sharding.py.
// It trains an MLP (flatten, dense 256-128-64 on shard 0; dense 32, logits,
// softmax cross-entropy and the optimizer on shard 1) on MNIST over two
// IPUs: `model` is the body of an ipu.loops.repeat over an infeed,
// compiled with ipu_compiler.compile under ipu_scope, sending each
// mini-batch's loss through an outfeed; GradientAccumulationOptimizerV2
// applies SGD once every --batches_to_accumulate mini-batches.
//
// Differences (docs/porting.md, "Ported programs", has them all):
//  - the data: deterministic synthetic MNIST (synthetic_mnist.h), since the
//    original downloads MNIST; --examples sets how many images;
//  - the learning rate is a number given to the optimizer, not a fed
//    placeholder carried through the loop: the optimizers here take a
//    double (the original feeds the same --learning_rate every run);
//  - dataset.cache() has no counterpart, so every epoch is reshuffled
//    (cache after shuffle replays the first epoch's order in TensorFlow);
//  - "Elapsed" is the host's wall time; the simulated IPU time of each run
//    goes to stderr.
//
//   bazel run //examples/ported:step2_sharding -- --steps=3
#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "examples/ported/synthetic_mnist.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/gradient_accumulation_optimizer.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "unsupported/Eigen/CXX11/Tensor"

// parse_args(): the same arguments and defaults, with underscores.
ABSL_FLAG(int32_t, batch_size, 32, "The batch size.");
ABSL_FLAG(int32_t, repeat_count, 160,
          "The number of times the pipeline will be executed for each step.");
ABSL_FLAG(double, epochs, 50, "Total number of epochs to train for.");
ABSL_FLAG(int64_t, steps, 0,
          "Total number of steps to train for (overrides epochs); 0: none.");
ABSL_FLAG(double, learning_rate, 0.01,
          "The learning rate used with stochastic gradient descent.");
ABSL_FLAG(int32_t, batches_to_accumulate, 16,
          "How many batches to process before processing gradients and "
          "updating weights.");
ABSL_FLAG(int64_t, examples, 60000,
          "Synthetic training images (the port's stand-in for MNIST's 60000).");

namespace tensorflow_ipu {
namespace examples {
namespace {

namespace scopes = ipu::scopes;

// A failed builder inside compile() or a loop body is recorded on its
// scope; compile() returns the first such error.
template <typename T>
bool Record(const Scope& scope, const absl::StatusOr<T>& r) {
  if (!r.ok()) scope.UpdateStatus(r.status());
  return r.ok();
}

// create_dataset(): normalised (image, label) pairs, batched, shuffled
// (whole batches, as the original's order of stages does) and repeated.
absl::StatusOr<data::Dataset> create_dataset(int64_t num_examples, int batch_size) {
  SyntheticMnist mnist = MakeSyntheticMnist(num_examples, 0);
  ASSIGN_OR_RETURN(data::Dataset dataset,
                   data::Dataset::FromTensorSlices(
                       {NormaliseImages(mnist.x_train, /*flatten=*/false),
                        LabelsToInt32(mnist.y_train)}));
  return dataset.Batch(batch_size, /*drop_remainder=*/true)
      .Shuffle(num_examples, /*seed=*/0)
      .Repeat()
      .Prefetch(2);
}

// tf.keras.layers.Dense(units, activation): kernel glorot_uniform, bias
// zeros, named "<variable scope>/<layer>/kernel" as Keras names them.
absl::StatusOr<Output> Dense(const Scope& scope, const std::string& variable_scope,
                             const std::string& layer, int64_t units, bool relu,
                             Output inputs, int64_t seed) {
  // From the root of the names, as TensorFlow's variable scopes ignore the
  // name scope that the compiled loop opens.
  VariableScope vs(scope.WithAbsoluteNameScope(""), absl::StrCat(variable_scope, "/", layer));
  const int64_t in = inputs.shape().dim_size(1);
  ASSIGN_OR_RETURN(Variable kernel, vs.get_variable("kernel", {in, units}, DT_FLOAT,
                                                    initializers::GlorotUniform(seed)));
  ASSIGN_OR_RETURN(Variable bias, vs.get_variable("bias", {units}, DT_FLOAT,
                                                  initializers::Zeros()));
  const Scope s = scope.NewSubScope(variable_scope);
  Output y = ops::BiasAdd(s, ops::MatMul(s, inputs, kernel.value(s)), bias.value(s));
  return relu ? ops::Relu(s, y).output : y;
}

// model(learning_rate, images, labels): one mini-batch, split over two
// shards; the loss goes to the outfeed.
absl::Status model(const Scope& scope, double learning_rate, int batches_to_accumulate,
                   ipu::IPUOutfeedQueue& outfeed_queue, Output images, Output labels) {
  Output activations;
  {
    Scope shard0 = scopes::ipu_shard(scope, 0);
    const int64_t batch = images.shape().dim_size(0);
    activations = ops::Reshape(shard0.NewSubScope("flatten"), images,
                               {batch, int64_t{kMnistRows * kMnistCols}});
    ASSIGN_OR_RETURN(activations, Dense(shard0, "dense256", "dense", 256, true, activations, 1));
    ASSIGN_OR_RETURN(activations, Dense(shard0, "dense128", "dense_1", 128, true, activations, 2));
    ASSIGN_OR_RETURN(activations, Dense(shard0, "dense64", "dense_2", 64, true, activations, 3));
  }
  Scope shard1 = scopes::ipu_shard(scope, 1);
  ASSIGN_OR_RETURN(activations, Dense(shard1, "dense32", "dense_3", 32, true, activations, 4));
  ASSIGN_OR_RETURN(Output logits, Dense(shard1, "logits", "dense_4", 10, false, activations, 5));
  Output cross_entropy =
      ops::SparseSoftmaxCrossEntropyWithLogits(shard1.NewSubScope("softmax_ce"), logits, labels)
          .loss;
  Output loss = ops::Mean(shard1.NewSubScope("mean"), cross_entropy, {0});
  Scope optimizer_scope = shard1.NewSubScope("optimizer");
  train::GradientDescentOptimizer sgd(learning_rate);
  train::GradientAccumulationOptimizerV2 accumulating(sgd, batches_to_accumulate);
  train::Optimizer& optimizer =
      batches_to_accumulate > 1 ? static_cast<train::Optimizer&>(accumulating) : sgd;
  ASSIGN_OR_RETURN(Operation train_op, optimizer.minimize(optimizer_scope, loss));
  outfeed_queue.enqueue(shard1.WithControlDependencies({train_op}), {loss});
  return shard1.status();
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

absl::Status Main() {
  const int batch_size = absl::GetFlag(FLAGS_batch_size);
  int repeat_count = absl::GetFlag(FLAGS_repeat_count);
  const int batches_to_accumulate = absl::GetFlag(FLAGS_batches_to_accumulate);
  const int64_t num_examples = absl::GetFlag(FLAGS_examples);
  if (batch_size < 1 || repeat_count < 1 || batches_to_accumulate < 1 ||
      num_examples < batch_size) {
    return absl::InvalidArgumentError(
        "--batch_size, --repeat_count and --batches_to_accumulate must be at "
        "least 1, and --examples at least one batch");
  }
  ASSIGN_OR_RETURN(data::Dataset dataset, create_dataset(num_examples, batch_size));
  const int64_t num_train_examples =
      static_cast<int64_t>(absl::GetFlag(FLAGS_epochs) * num_examples);

  // Create the data queues from/to IPU.
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed_queue,
                   ipu::IPUInfeedQueue::Create(dataset, "infeed"));
  ipu::IPUOutfeedQueue outfeed_queue("outfeed");

  const int remainder = repeat_count % batches_to_accumulate;
  if (remainder > 0) {
    repeat_count += batches_to_accumulate - remainder;
    std::printf("Rounding up repeat count to whole multiple of batches-to-accumulate "
                "(== %d)\n", repeat_count);
  }
  const int64_t examples_per_step = int64_t{batch_size} * repeat_count;
  const int64_t steps = absl::GetFlag(FLAGS_steps) > 0
                            ? absl::GetFlag(FLAGS_steps)
                            : (num_train_examples + examples_per_step - 1) / examples_per_step;
  const int64_t training_samples = steps * examples_per_step;
  std::printf("Steps %lld x examples per step %lld (== %lld training examples, %s epochs "
              "of %lld examples)\n",
              static_cast<long long>(steps), static_cast<long long>(examples_per_step),
              static_cast<long long>(training_samples),
              absl::StrCat(static_cast<double>(training_samples) / num_examples).c_str(),
              static_cast<long long>(num_examples));

  Scope root = Scope::NewRootScope();
  const double learning_rate = absl::GetFlag(FLAGS_learning_rate);
  // loop_repeat_model: the training step `repeat_count` times on the IPU.
  auto loop_repeat_model = [&](const Scope& s, const std::vector<Output>&) {
    auto body = [&](const Scope& b, const std::vector<Output>&,
                    const std::vector<Output>& batch) {
      b.UpdateStatus(model(b, learning_rate, batches_to_accumulate, outfeed_queue,
                           batch[0], batch[1]));
      return std::vector<Output>{};
    };
    absl::StatusOr<std::vector<Output>> r =
        ipu::loops::repeat(s, repeat_count, body, {}, &infeed_queue);
    return Record(s, r) ? *r : std::vector<Output>{};
  };
  ASSIGN_OR_RETURN(std::vector<Output> compiled_model,
                   ipu::ipu_compiler::compile(scopes::ipu_scope(root, "/device:IPU:0"),
                                              loop_repeat_model, {}));
  Output outfeed_op = outfeed_queue.dequeue(root)[0];
  Operation init_op = global_variables_initializer(root);
  RETURN_IF_ERROR(root.status());

  // Configure the IPU.
  ipu::config::IPUConfig ipu_configuration;
  ipu_configuration.auto_select_ipus = 2;
  RETURN_IF_ERROR(ipu_configuration.configure_ipu_system());

  ClientSession sess(root);
  RETURN_IF_ERROR(sess.Run({}, {}, {init_op}, nullptr));
  RETURN_IF_ERROR(sess.Run({}, {}, {infeed_queue.initializer(root)}, nullptr));
  const auto begin = std::chrono::steady_clock::now();
  for (int64_t step = 0; step < steps; ++step) {
    RunMetadata metadata;
    RETURN_IF_ERROR(sess.Run(RunOptions(), {}, {}, {compiled_model[0].op()}, nullptr,
                             &metadata));
    std::fprintf(stderr, "%s", metadata.ipu_profile.ToString().c_str());
    // Read the outfeed for the training losses.
    std::vector<Tensor> losses;
    RETURN_IF_ERROR(sess.Run({outfeed_op}, &losses));
    const auto l = losses[0].flat<float>();
    if (l.size() > 0 && (step == steps - 1 || step % 10 == 0)) {
      const double mean = std::accumulate(l.data(), l.data() + l.size(), 0.0) / l.size();
      std::printf("Step %lld, Epoch %.1f, Mean loss: %.3f\n", static_cast<long long>(step),
                  static_cast<double>(examples_per_step * step) / num_examples, mean);
    }
  }
  const double elapsed = Seconds(begin);
  std::printf("Elapsed %s, %s samples/sec\n", absl::StrCat(elapsed).c_str(),
              absl::StrCat(training_samples / elapsed).c_str());
  std::printf("Program ran successfully\n");
  return absl::OkStatus();
}

}  // namespace
}  // namespace examples
}  // namespace tensorflow_ipu

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  absl::Status status = tensorflow_ipu::examples::Main();
  if (!status.ok()) {
    std::fprintf(stderr, "step2_sharding: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
