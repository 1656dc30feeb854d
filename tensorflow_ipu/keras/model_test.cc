// The Keras layer on the CPU: summaries, layer and compile errors,
// losses, optimizers, callbacks and weights.
#include "tensorflow_ipu/keras/model.h"

#include <cmath>
#include <cstdio>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/keras/backend.h"
#include "tensorflow_ipu/keras/initializers.h"
#include "tensorflow_ipu/keras/layers/activation.h"
#include "tensorflow_ipu/keras/layers/conv2d.h"
#include "tensorflow_ipu/keras/layers/dense.h"
#include "tensorflow_ipu/keras/layers/dropout.h"
#include "tensorflow_ipu/keras/layers/flatten.h"
#include "tensorflow_ipu/keras/layers/input_layer.h"
#include "tensorflow_ipu/keras/layers/max_pooling2d.h"

namespace tensorflow_ipu {
namespace keras {
namespace {

using ::testing::HasSubstr;

class ModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backend::clear_session();
    utils::set_random_seed(5);
  }
};

// The seed tutorial's model_fn.
absl::StatusOr<std::shared_ptr<Model>> TutorialCnn() {
  KerasTensor input_layer = Input({28, 28, 1});
  KerasTensor x = layers::Conv2D(32, {3, 3}, {.activation = "relu"})(input_layer);
  x = layers::MaxPooling2D({2, 2})(x);
  x = layers::Conv2D(64, {3, 3}, {.activation = "relu"})(x);
  x = layers::MaxPooling2D({2, 2})(x);
  x = layers::Flatten()(x);
  x = layers::Dropout(0.5)(x);
  x = layers::Dense(10, {.activation = "softmax"})(x);
  return Model::Create(input_layer, x);
}

std::vector<std::string> SummaryLines(const Model& m) {
  std::vector<std::string> lines;
  m.summary([&](const std::string& l) { lines.push_back(l); });
  return lines;
}

TEST_F(ModelTest, TutorialCnnSummaryIsKerasTableByteForByte) {
  TF_ASSERT_OK_AND_ASSIGN(auto model, TutorialCnn());
  EXPECT_EQ(model->count_params(), 34826);
  const std::string thin(65, '_'), thick(65, '=');
  const std::vector<std::string> expected = {
      "Model: \"model\"",
      thin,
      "Layer (type)                 Output Shape              Param #   ",
      thick,
      "input_1 (InputLayer)         [(None, 28, 28, 1)]       0         ",
      thin,
      "conv2d (Conv2D)              (None, 26, 26, 32)        320       ",
      thin,
      "max_pooling2d (MaxPooling2D) (None, 13, 13, 32)        0         ",
      thin,
      "conv2d_1 (Conv2D)            (None, 11, 11, 64)        18496     ",
      thin,
      "max_pooling2d_1 (MaxPooling2 (None, 5, 5, 64)          0         ",
      thin,
      "flatten (Flatten)            (None, 1600)              0         ",
      thin,
      "dropout (Dropout)            (None, 1600)              0         ",
      thin,
      "dense (Dense)                (None, 10)                16010     ",
      thick,
      "Total params: 34,826",
      "Trainable params: 34,826",
      "Non-trainable params: 0",
      thin,
  };
  EXPECT_EQ(SummaryLines(*model), expected);
}

TEST_F(ModelTest, SequentialSummaryLeavesOutTheInputLayer) {
  TF_ASSERT_OK_AND_ASSIGN(
      auto model, Sequential::Create({layers::InputLayer({784}), layers::Dense(10)}));
  std::vector<std::string> lines = SummaryLines(*model);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], "Model: \"sequential\"");
  EXPECT_EQ(lines[4], "dense (Dense)                (None, 10)                7850      ");
}

TEST_F(ModelTest, LayerErrorsNameTheLayerAndTheShapes) {
  KerasTensor in = Input({8, 8, 3});
  KerasTensor d = layers::Dense(4)(in);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(d.status().message()),
              HasSubstr("Input 0 of layer \"dense\" is incompatible with the layer"));
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("(None, 8, 8, 3)"));
  // An error flows through later calls and out of Model::Create.
  KerasTensor e = layers::Flatten()(d);
  EXPECT_EQ(e.status(), d.status());
  EXPECT_EQ(Model::Create(in, e).status(), d.status());

  KerasTensor a = layers::Activation("swishy")(in);
  EXPECT_THAT(std::string(a.status().message()), HasSubstr("Unknown activation function: 'swishy'"));
  KerasTensor p = layers::Conv2D(2, {3, 3}, {.padding = "full"})(in);
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("must be one of \"valid\", \"same\". Received: full"));
  KerasTensor big = layers::MaxPooling2D({9, 9})(in);
  EXPECT_THAT(std::string(big.status().message()),
              HasSubstr("a window of 9 does not fit in an input of 8"));
  KerasTensor rate = layers::Dropout(1.0)(in);
  EXPECT_THAT(std::string(rate.status().message()), HasSubstr("Received: rate=1"));
  KerasTensor units = layers::Dense(0)(layers::Flatten()(in));
  EXPECT_THAT(std::string(units.status().message()), HasSubstr("Received: units=0"));
}

TEST_F(ModelTest, DisconnectedGraphIsRefused) {
  KerasTensor a = Input({4});
  KerasTensor b = Input({4});
  KerasTensor out = layers::Dense(2)(b);
  absl::StatusOr<std::shared_ptr<Model>> m = Model::Create(a, out);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("Graph disconnected"));
}

TEST_F(ModelTest, CompileAndFitErrors) {
  TF_ASSERT_OK_AND_ASSIGN(auto model, Sequential::Create({layers::InputLayer({4}),
                                                          layers::Dense(2)}));
  Tensor x = Tensor::FromVector<float>(std::vector<float>(32, 0.5f), TensorShape({8, 4}));
  Tensor y = Tensor::FromVector<float>(std::vector<float>(16, 0.f), TensorShape({8, 2}));
  EXPECT_THAT(std::string(model->fit(x, y).status().message()),
              HasSubstr("You must compile your model before training/testing."));
  EXPECT_THAT(std::string(model->compile("adagrad", "mse").message()),
              HasSubstr("Could not interpret optimizer identifier: adagrad"));
  EXPECT_THAT(std::string(model->compile("sgd", "hinge").message()),
              HasSubstr("Unknown loss function: 'hinge'"));
  EXPECT_THAT(std::string(model->compile("sgd", "mse", {"auc"}).message()),
              HasSubstr("Unknown metric function: 'auc'"));
  EXPECT_THAT(std::string(model->compile("sgd", "mse", {}, 0).message()),
              HasSubstr("`steps_per_execution` must be a positive integer, got 0"));
  TF_ASSERT_OK(model->compile("sgd", "mse"));
  Tensor short_y = Tensor::FromVector<float>(std::vector<float>(14, 0.f), TensorShape({7, 2}));
  EXPECT_THAT(std::string(model->fit(x, short_y).status().message()),
              HasSubstr("Data cardinality is ambiguous:\n  x sizes: 8\n  y sizes: 7"));
  EXPECT_THAT(std::string(model->fit(x, y, {.batch_size = 0}).status().message()),
              HasSubstr("`batch_size` must be a positive integer, got 0"));
  // The model still trains after the errors.
  TF_EXPECT_OK(model->fit(x, y, {.batch_size = 4, .verbose = 0}).status());
}

// y = 2x - 1 learnt by one Dense unit with each optimizer; sparse and
// categorical cross-entropy on a separable problem.
TEST_F(ModelTest, EveryOptimizerFitsALine) {
  std::vector<float> xs, ys;
  for (int i = 0; i < 64; ++i) {
    xs.push_back(i / 32.f - 1);
    ys.push_back(2 * xs.back() - 1);
  }
  Tensor x = Tensor::FromVector<float>(xs, TensorShape({64, 1}));
  Tensor y = Tensor::FromVector<float>(ys, TensorShape({64, 1}));
  for (const optimizers::Optimizer& opt :
       {optimizers::SGD(0.1), optimizers::SGD(0.05, 0.9), optimizers::Adam(0.05),
        optimizers::RMSprop(0.05)}) {
    TF_ASSERT_OK_AND_ASSIGN(auto model, Sequential::Create({layers::InputLayer({1}),
                                                            layers::Dense(1)}));
    TF_ASSERT_OK(model->compile(opt, "mse"));
    TF_ASSERT_OK_AND_ASSIGN(callbacks::History h,
                            model->fit(x, y, {.epochs = 30, .batch_size = 16, .verbose = 0}));
    EXPECT_LT(h.history["loss"].back(), 0.01) << opt.config().name;
    TF_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> w, model->get_weights());
    EXPECT_NEAR(w[0].data<float>()[0], 2.f, 0.1f) << opt.config().name;
    EXPECT_NEAR(w[1].data<float>()[0], -1.f, 0.1f) << opt.config().name;
  }
}

// One step from w = 1 on loss (w * 1 - 0)^2, gradient 2: Keras's update
// rules, which differ from TensorFlow 1's for RMSprop (whose mean square
// starts at 1 and takes epsilon inside the root: 1 - 0.01 * 2 / sqrt(1.3)).
TEST_F(ModelTest, ExactFirstStepOfEachOptimizer) {
  const std::vector<std::pair<optimizers::Optimizer, float>> cases = {
      {optimizers::SGD(0.01), 1.f - 0.01f * 2},
      {optimizers::SGD(0.01, 0.9), 1.f - 0.01f * 2},
      {optimizers::Adam(0.01), 1.f - 0.01f * 2 / (2 + 1e-7f)},
      {optimizers::RMSprop(0.01), 1.f - 0.01f * 2 / (std::sqrt(0.4f) + 1e-7f)},
  };
  Tensor x = Tensor::FromVector<float>({1.f}, TensorShape({1, 1}));
  Tensor y = Tensor::FromVector<float>({0.f}, TensorShape({1, 1}));
  for (const auto& [opt, expected] : cases) {
    TF_ASSERT_OK_AND_ASSIGN(
        auto model, Sequential::Create({layers::InputLayer({1}),
                                        layers::Dense(1, {.use_bias = false})}));
    TF_ASSERT_OK(model->set_weights({Tensor::FromVector<float>({1.f}, TensorShape({1, 1}))}));
    TF_ASSERT_OK(model->compile(opt, "mse"));
    TF_ASSERT_OK(model->fit(x, y, {.batch_size = 1, .verbose = 0, .shuffle = false}).status());
    TF_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> w, model->get_weights());
    EXPECT_NEAR(w[0].data<float>()[0], expected, 1e-6) << opt.config().name;
  }
}

TEST_F(ModelTest, SparseLabelsAndValidationLogs) {
  std::vector<float> xs;
  std::vector<int32_t> labels;
  for (int i = 0; i < 96; ++i) {
    const int c = i % 3;
    labels.push_back(c);
    for (int k = 0; k < 3; ++k) xs.push_back(k == c ? 1.f : 0.f);
  }
  Tensor x = Tensor::FromVector<float>(xs, TensorShape({96, 3}));
  Tensor y = Tensor::FromVector<int32_t>(labels, TensorShape({96}));
  TF_ASSERT_OK_AND_ASSIGN(auto model, Sequential::Create({layers::InputLayer({3}),
                                                          layers::Dense(3, {.activation = "softmax"})}));
  TF_ASSERT_OK(model->compile(optimizers::SGD(0.5), "sparse_categorical_crossentropy",
                              {"accuracy"}));
  TF_ASSERT_OK_AND_ASSIGN(
      callbacks::History h,
      model->fit(x, y, {.epochs = 5, .batch_size = 10, .verbose = 0,
                        .validation_data = std::make_pair(x, y)}));
  ASSERT_EQ(h.history.count("val_loss"), 1u);
  ASSERT_EQ(h.history.count("val_accuracy"), 1u);
  EXPECT_EQ(h.history["val_accuracy"].back(), 1.0);
  TF_ASSERT_OK_AND_ASSIGN(Tensor p, model->predict(x, {.batch_size = 10}));
  // 96 rows in batches of 10: the CPU keeps the last, partial batch.
  EXPECT_EQ(p.shape(), TensorShape({96, 3}));
}

class CountingCallback : public callbacks::Callback {
 public:
  void on_train_batch_begin(int64_t batch, const Logs&) override { begins.push_back(batch); }
  void on_train_batch_end(int64_t batch, const Logs& logs) override {
    ends.push_back(batch);
    EXPECT_TRUE(logs.Get("loss").has_value());
  }
  void on_epoch_end(int epoch, const Logs&) override { epochs.push_back(epoch); }
  std::vector<int64_t> begins, ends;
  std::vector<int> epochs;
};

TEST_F(ModelTest, CallbacksFireOncePerExecution) {
  TF_ASSERT_OK_AND_ASSIGN(auto model, Sequential::Create({layers::InputLayer({2}),
                                                          layers::Dense(1)}));
  TF_ASSERT_OK(model->compile("sgd", "mse", {}, /*steps_per_execution=*/4));
  Tensor x = Tensor::FromVector<float>(std::vector<float>(64, 1.f), TensorShape({32, 2}));
  Tensor y = Tensor::FromVector<float>(std::vector<float>(32, 0.f), TensorShape({32, 1}));
  CountingCallback c;
  TF_ASSERT_OK(model->fit(x, y, {.epochs = 2, .batch_size = 4, .verbose = 0,
                                 .callbacks = {&c}}).status());
  // 8 steps per epoch, 4 per execution: begin at 0 and 4, end at 3 and 7.
  EXPECT_EQ(c.begins, (std::vector<int64_t>{0, 4, 0, 4}));
  EXPECT_EQ(c.ends, (std::vector<int64_t>{3, 7, 3, 7}));
  EXPECT_EQ(c.epochs, (std::vector<int>{0, 1}));
  CountingCallback every;
  model->set_asynchronous_callbacks(true);
  TF_ASSERT_OK(model->fit(x, y, {.epochs = 1, .batch_size = 4, .verbose = 0,
                                 .callbacks = {&every}}).status());
  EXPECT_EQ(every.ends, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(every.begins, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(ModelTest, WeightsRoundTripThroughACheckpoint) {
  TF_ASSERT_OK_AND_ASSIGN(auto a, TutorialCnn());
  TF_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> wa, a->get_weights());
  ASSERT_EQ(wa.size(), 6u);
  const std::string path = ::testing::TempDir() + "/keras_weights";
  TF_ASSERT_OK(a->save_weights(path));
  TF_ASSERT_OK_AND_ASSIGN(auto b, TutorialCnn());
  TF_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> before, b->get_weights());
  EXPECT_NE(before[0].data<float>()[0], wa[0].data<float>()[0]);
  TF_ASSERT_OK(b->load_weights(path));
  TF_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> wb, b->get_weights());
  for (size_t i = 0; i < wa.size(); ++i) {
    ASSERT_EQ(wa[i].NumElements(), wb[i].NumElements());
    for (int64_t k = 0; k < wa[i].NumElements(); ++k) {
      ASSERT_EQ(wa[i].data<float>()[k], wb[i].data<float>()[k]) << "weight " << i;
    }
  }
  // A checkpoint of another architecture names what does not fit.
  TF_ASSERT_OK_AND_ASSIGN(auto c, Sequential::Create({layers::InputLayer({4}),
                                                      layers::Dense(3)}));
  absl::Status s = c->load_weights(path);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(c->set_weights({}).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace keras
}  // namespace tensorflow_ipu
