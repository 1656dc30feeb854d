// A port of the vendor's TensorFlow 1 MNIST application:
//   repository graphcore/tutorials,
//   path simple_applications/tensorflow/mnist/mnist_tf.py.
// It trains a two-layer network (dense 320 with ReLU, dropout 0.2, dense 10
// with ReLU) with Nesterov momentum. Training and testing are each an
// ipu.loops.repeat over an infeed, compiled under ipu_scope; every
// iteration sends its mean loss and the running accuracy (tf.metrics'
// local total and count) through an outfeed, which the host dequeues after
// each run. The learning rate follows scheduler(epoch); the model is saved
// with a Saver after training, then tested.
//
// Differences (docs/porting.md, "Ported programs", has them all):
//  - data: deterministic synthetic MNIST (synthetic_mnist.h), since the
//    original downloads MNIST; --num_train and --num_test set the sizes;
//  - dropout: the IPU here has no random ops, so the dropout mask (keep
//    with probability 0.8, scaled by 1/0.8) is drawn on the host, per
//    batch, and arrives through the training infeed beside the batch;
//  - the learning-rate placeholder: the optimizers take a number, so there
//    is one compiled training loop per rate that scheduler() returns,
//    sharing the variables and momentum slots; an epoch runs the loop of
//    its rate (the switch between executables costs an engine load);
//  - accuracy: ArgMax has no IPU lowering, so argmax(relu2) == labels is
//    computed from Max, OneHot and Select, with ArgMax's rule for ties (the
//    first maximum wins); acc is read after the batch's update;
//  - the datasets are built from the arrays, not from placeholders fed to
//    the infeed initializers; cache(), dataset_benchmark and tqdm have no
//    counterpart (one line per epoch shows what the progress bar shows).
//
//   bazel run //examples/ported:mnist_tf -- --num_train=4800 --num_test=800
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "examples/ported/mnist_model.h"
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
#include "tensorflow_ipu/train/saver.h"
#include "unsupported/Eigen/CXX11/Tensor"

ABSL_FLAG(std::string, test_mode, "all",
          "Use this flag to run the model in either 'training' or 'tests' mode "
          "or both ('all')");
ABSL_FLAG(int64_t, num_train, 60000, "Synthetic training images (MNIST has 60000).");
ABSL_FLAG(int64_t, num_test, 10000, "Synthetic test images (MNIST has 10000).");
ABSL_FLAG(std::string, save_path, "model", "Where saver.save writes the model.");

namespace tensorflow_ipu {
namespace examples {
namespace {

double scheduler(int epoch) {
  if (epoch < 1) return 0.02;
  if (epoch < 3) return 0.01;
  return 0.001;
}

template <typename T>
bool Record(const Scope& scope, const absl::StatusOr<T>& r) {
  if (!r.ok()) scope.UpdateStatus(r.status());
  return r.ok();
}

// loop_builder(iterations, builder_func, infeed), compiled under ipu_scope:
// the model `iterations` times; the op that runs the loop.
absl::StatusOr<Operation> CompileLoop(const Scope& root, int iterations,
                                      const ipu::IPUInfeedQueue& infeed,
                                      const std::function<absl::Status(
                                          const Scope&, const std::vector<Output>&)>& model) {
  auto loop_builder = [&](const Scope& s, const std::vector<Output>&) {
    auto body = [&](const Scope& b, const std::vector<Output>&,
                    const std::vector<Output>& batch) {
      b.UpdateStatus(model(b, batch));
      return std::vector<Output>{};
    };
    absl::StatusOr<std::vector<Output>> r = ipu::loops::repeat(s, iterations, body, {}, &infeed);
    return Record(s, r) ? *r : std::vector<Output>{};
  };
  ASSIGN_OR_RETURN(std::vector<Output> loop,
                   ipu::ipu_compiler::compile(ipu::scopes::ipu_scope(root, "/device:IPU:0"),
                                              loop_builder, {}));
  return loop[0].op();
}

// The mean of an outfeed's values (np.mean).
double Mean(const Tensor& t) {
  const auto v = t.flat<float>();
  return std::accumulate(v.data(), v.data() + v.size(), 0.0) / v.size();
}

absl::Status run_model(const std::string& test_mode) {
  // Sizes/shapes for the dataset (the synthetic stand-in for load_data()):
  SyntheticMnist mnist =
      MakeSyntheticMnist(absl::GetFlag(FLAGS_num_train), absl::GetFlag(FLAGS_num_test));
  const int64_t batch_size = 16;
  const int64_t num_train = mnist.y_train.dim_size(0);
  const int64_t num_test = mnist.y_test.dim_size(0);

  // Decide how to split epochs into loops up front:
  const int epochs = 5;
  const int ipu_steps_per_epoch = 15;
  const int64_t batches_per_epoch = num_train / batch_size;
  const int64_t test_batches = num_test / batch_size;
  const int64_t batches_per_step = batches_per_epoch / ipu_steps_per_epoch;
  if (batches_per_epoch % ipu_steps_per_epoch != 0 || batches_per_step == 0 ||
      test_batches == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "IPU steps per epoch ", ipu_steps_per_epoch, " must divide batches per epoch ",
        batches_per_epoch, " (and there must be a test batch): choose --num_train a "
        "multiple of ", batch_size * ipu_steps_per_epoch, " and --num_test of ", batch_size));
  }

  // Flatten the images and cast the labels; create datasets and IPU feeds.
  auto dataset = [&](const Tensor& x, const Tensor& y) -> absl::StatusOr<data::Dataset> {
    ASSIGN_OR_RETURN(data::Dataset d, data::Dataset::FromTensorSlices(
                                          {NormaliseImages(x, true), LabelsToInt32(y)}));
    return d.Repeat().Batch(batch_size, /*drop_remainder=*/true);
  };
  ASSIGN_OR_RETURN(data::Dataset train_dataset, dataset(mnist.x_train, mnist.y_train));
  ASSIGN_OR_RETURN(data::Dataset test_dataset, dataset(mnist.x_test, mnist.y_test));
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed_train_queue,
                   ipu::IPUInfeedQueue::Create(train_dataset.Map(DropoutMaskAppender(1)),
                                               "infeed_train"));
  // One outfeed per training loop (an outfeed is enqueued by one loop):
  // "outfeed_train" for the first rate, "outfeed_train_1", ... for the
  // others of the schedule.
  std::map<double, ipu::IPUOutfeedQueue> outfeed_train_queue;
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed_test_queue,
                   ipu::IPUInfeedQueue::Create(test_dataset, "infeed_test"));
  ipu::IPUOutfeedQueue outfeed_test_queue("outfeed_test");

  // Place the model on the IPU: one training loop per scheduled rate, and
  // the test loop.
  Scope root = Scope::NewRootScope();
  MnistModelState state;
  std::map<double, Operation> train_loop;
  for (int e = 0; e < epochs; ++e) {
    const double lr = scheduler(e);
    if (train_loop.count(lr)) continue;
    const size_t k = outfeed_train_queue.size();
    ipu::IPUOutfeedQueue& outfeed =
        outfeed_train_queue
            .emplace(lr, ipu::IPUOutfeedQueue(k == 0 ? std::string("outfeed_train")
                                                     : "outfeed_train_" + std::to_string(k)))
            .first->second;
    ASSIGN_OR_RETURN(train_loop[lr],
                     CompileLoop(root, batches_per_step, infeed_train_queue,
                                 [&](const Scope& s, const std::vector<Output>& batch) {
                                   return model(s, lr, &outfeed, /*training=*/true,
                                                batch, &state);
                                 }));
  }
  ASSIGN_OR_RETURN(Operation test_loop,
                   CompileLoop(root, test_batches, infeed_test_queue,
                               [&](const Scope& s, const std::vector<Output>& batch) {
                                 return model(s, 0, &outfeed_test_queue, /*training=*/false,
                                              batch, &state);
                               }));

  // Initialisers, on the CPU.
  Scope cpu = root.WithDevice("cpu");
  Operation metrics_initializer = ops::NoOp(cpu.WithControlDependencies(
      {state.accuracy_total.initializer(), state.accuracy_count.initializer()}));
  train::Saver saver(cpu);

  // Setup and acquire an IPU device:
  ipu::config::IPUConfig config;
  config.auto_select_ipus = 1;
  RETURN_IF_ERROR(config.configure_ipu_system());

  // These allow us to retrieve the results of IPU feeds:
  std::map<double, std::vector<Output>> dequeue_train_outfeed;
  for (auto& [lr, queue] : outfeed_train_queue) dequeue_train_outfeed[lr] = queue.dequeue(root);
  std::vector<Output> dequeue_test_outfeed = outfeed_test_queue.dequeue(root);
  Operation init = global_variables_initializer(root);
  RETURN_IF_ERROR(root.status());

  std::printf("\nImage shape: (%d, %d) Training examples: %lld Test examples: %lld\n",
              kMnistRows, kMnistCols, static_cast<long long>(num_train),
              static_cast<long long>(num_test));
  std::printf("Epochs: %d Batch-size: %lld Steps-per-epoch: %d Batches-per-step: %lld\n",
              epochs, static_cast<long long>(batch_size), ipu_steps_per_epoch,
              static_cast<long long>(batches_per_step));

  // Run the model:
  ClientSession sess(root);
  RETURN_IF_ERROR(sess.Run({}, {}, {init}, nullptr));
  RETURN_IF_ERROR(sess.Run({}, {}, {infeed_train_queue.initializer(root)}, nullptr));

  if (test_mode == "all" || test_mode == "training") {
    std::printf("Training...\n");
    for (int e = 0; e < epochs; ++e) {
      RETURN_IF_ERROR(sess.Run({}, {}, {metrics_initializer}, nullptr));
      std::vector<Tensor> result;
      for (int i = 0; i < ipu_steps_per_epoch; ++i) {
        RETURN_IF_ERROR(sess.Run({}, {}, {train_loop.at(scheduler(e))}, nullptr));
        RETURN_IF_ERROR(sess.Run(dequeue_train_outfeed.at(scheduler(e)), &result));
      }
      // What the progress bar shows at the end of the epoch: the first
      // iteration's values of the epoch's last run.
      std::printf("Loss %.5f Accuracy %.5f Epoch: %d/%d\n", result[0].flat<float>()(0),
                  result[1].flat<float>()(0), e + 1, epochs);
    }
    std::printf("Saving...\n");
    RETURN_IF_ERROR(saver.save(sess, absl::GetFlag(FLAGS_save_path)));
  }

  if (test_mode == "all" || test_mode == "tests") {
    std::printf("Testing...\n");
    RETURN_IF_ERROR(sess.Run({}, {}, {metrics_initializer}, nullptr));
    RETURN_IF_ERROR(sess.Run({}, {}, {infeed_test_queue.initializer(root)}, nullptr));
    RETURN_IF_ERROR(sess.Run({}, {}, {test_loop}, nullptr));
    std::vector<Tensor> result;
    RETURN_IF_ERROR(sess.Run(dequeue_test_outfeed, &result));
    std::printf("Test loss: %.8f Test accuracy: %.8f\n", Mean(result[0]), Mean(result[1]));
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace examples
}  // namespace tensorflow_ipu

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string test_mode = absl::GetFlag(FLAGS_test_mode);
  if (test_mode != "training" && test_mode != "tests" && test_mode != "all") {
    std::fprintf(stderr, "mnist_tf: --test_mode must be training, tests or all, not '%s'\n",
                 test_mode.c_str());
    return 2;
  }
  absl::Status status = tensorflow_ipu::examples::run_model(test_mode);
  if (!status.ok()) {
    std::fprintf(stderr, "mnist_tf: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
