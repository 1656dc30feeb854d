// fit/evaluate/predict of a small CNN on the CPU and on the simulated IPU:
// it learns, and the IPU variants agree where the maths is the same.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <regex>
#include <sstream>
#include <functional>
#include <optional>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/ipu/ipu_strategy.h"
#include "tensorflow_ipu/keras/initializers.h"
#include "tensorflow_ipu/keras/layers/conv2d.h"
#include "tensorflow_ipu/keras/layers/dense.h"
#include "tensorflow_ipu/keras/layers/flatten.h"
#include "tensorflow_ipu/keras/layers/input_layer.h"
#include "tensorflow_ipu/keras/layers/max_pooling2d.h"
#include "tensorflow_ipu/keras/model.h"
#include "tests/ipu/ipu_test_util.h"
#include "tests/keras/keras_test_data.h"

namespace tensorflow_ipu {
namespace {

namespace layers = keras::layers;

class FitTest : public testing::IpuTest {};

// Input 8x8x1 -> Conv2D(4, 3x3, relu) -> MaxPooling2D -> Flatten -> Dense(4, softmax).
absl::StatusOr<std::shared_ptr<keras::Model>> SmallCnn() {
  keras::utils::set_random_seed(7);
  keras::KerasTensor in = keras::Input({8, 8, 1});
  keras::KerasTensor x = layers::Conv2D(4, {3, 3}, {.activation = "relu"})(in);
  x = layers::MaxPooling2D({2, 2})(x);
  x = layers::Flatten()(x);
  x = layers::Dense(4, {.activation = "softmax"})(x);
  return keras::Model::Create(in, x);
}

TEST_F(FitTest, CpuModelLearns) {
  testing::QuadrantData d = testing::MakeQuadrants(256);
  TF_ASSERT_OK_AND_ASSIGN(auto model, SmallCnn());
  EXPECT_FALSE(model->on_ipu());
  TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy",
                              {"accuracy"}));
  TF_ASSERT_OK_AND_ASSIGN(keras::callbacks::History h,
                       model->fit(d.x, d.y_onehot, {.epochs = 3, .batch_size = 16, .verbose = 0}));
  ASSERT_EQ(h.history["loss"].size(), 3u);
  EXPECT_LT(h.history["loss"][2], h.history["loss"][0]);
  TF_ASSERT_OK_AND_ASSIGN(std::vector<double> scores,
                       model->evaluate(d.x, d.y_onehot, {.batch_size = 16, .verbose = 0}));
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_GT(scores[1], 0.9) << "accuracy after 3 epochs";
}

TEST_F(FitTest, IpuModelLearnsAndStepsPerExecutionChangesNothing) {
  Configure(1);
  testing::QuadrantData d = testing::MakeQuadrants(256);
  ipu::ipu_strategy::IPUStrategy strategy;
  std::vector<double> losses[2];
  std::vector<Tensor> initial;
  for (int variant = 0; variant < 2; ++variant) {
    auto scope = strategy.scope();
    TF_ASSERT_OK_AND_ASSIGN(auto model, SmallCnn());
    EXPECT_TRUE(model->on_ipu());
    // The same starting point for both.
    if (variant == 0) {
      TF_ASSERT_OK_AND_ASSIGN(initial, model->get_weights());
      ASSERT_EQ(initial.size(), 4u);
    } else {
      TF_ASSERT_OK(model->set_weights(initial));
    }
    TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy", {"accuracy"},
                                variant == 0 ? 1 : 16));
    keras::utils::set_random_seed(11);  // the same shuffles
    TF_ASSERT_OK_AND_ASSIGN(keras::callbacks::History h,
                         model->fit(d.x, d.y_onehot, {.epochs = 2, .batch_size = 16, .verbose = 0}));
    losses[variant] = h.history["loss"];
    EXPECT_GT(model->last_simulated_seconds(), 0);
  }
  ASSERT_EQ(losses[0].size(), 2u);
  ASSERT_EQ(losses[1].size(), 2u);
  for (int e = 0; e < 2; ++e) EXPECT_NEAR(losses[0][e], losses[1][e], 1e-5) << "epoch " << e;
}

TEST_F(FitTest, ModelTrainedOnTheIpuEvaluatesOnTheCpu) {
  Configure(1);
  testing::QuadrantData d = testing::MakeQuadrants(128);
  const std::string path = ::testing::TempDir() + "/ipu_trained";
  std::vector<double> ipu_scores;
  Tensor ipu_predictions;
  {
    ipu::ipu_strategy::IPUStrategy strategy;
    auto scope = strategy.scope();
    TF_ASSERT_OK_AND_ASSIGN(auto model, SmallCnn());
    TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy",
                                {"accuracy"}, 8));
    TF_ASSERT_OK(model->fit(d.x, d.y_onehot, {.epochs = 2, .batch_size = 16, .verbose = 0})
                     .status());
    TF_ASSERT_OK_AND_ASSIGN(ipu_scores, model->evaluate(d.x, d.y_onehot,
                                                        {.batch_size = 16, .verbose = 0}));
    TF_ASSERT_OK_AND_ASSIGN(ipu_predictions, model->predict(d.x, {.batch_size = 16}));
    TF_ASSERT_OK(model->save_weights(path));
  }
  TF_ASSERT_OK_AND_ASSIGN(auto cpu_model, SmallCnn());
  EXPECT_FALSE(cpu_model->on_ipu());
  TF_ASSERT_OK(cpu_model->load_weights(path));
  TF_ASSERT_OK(cpu_model->compile("sgd", "categorical_crossentropy", {"accuracy"}));
  TF_ASSERT_OK_AND_ASSIGN(std::vector<double> cpu_scores,
                          cpu_model->evaluate(d.x, d.y_onehot, {.batch_size = 16, .verbose = 0}));
  EXPECT_NEAR(cpu_scores[0], ipu_scores[0], 1e-4);
  EXPECT_EQ(cpu_scores[1], ipu_scores[1]);
  TF_ASSERT_OK_AND_ASSIGN(Tensor cpu_predictions, cpu_model->predict(d.x, {.batch_size = 16}));
  ASSERT_EQ(cpu_predictions.shape(), ipu_predictions.shape());
  for (int64_t i = 0; i < cpu_predictions.NumElements(); ++i) {
    ASSERT_NEAR(cpu_predictions.data<float>()[i], ipu_predictions.data<float>()[i], 1e-5)
        << "element " << i;
  }
}

// A second fit (and an evaluate after it) reuses the programs built by the
// first: the cluster is not compiled again, and training continues.
TEST_F(FitTest, SecondFitReusesTheCompiledProgram) {
  Configure(1);
  testing::QuadrantData d = testing::MakeQuadrants(64);
  testing::QuadrantData other = testing::MakeQuadrants(64, /*seed=*/9);
  ipu::ipu_strategy::IPUStrategy strategy;
  auto scope = strategy.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, SmallCnn());
  TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy",
                              {"accuracy"}, 4));
  TF_ASSERT_OK_AND_ASSIGN(keras::callbacks::History first,
                          model->fit(d.x, d.y_onehot, {.batch_size = 16, .verbose = 0}));
  ASSERT_EQ(model->last_execution_profile().clusters.size(), 1u);
  EXPECT_TRUE(model->last_execution_profile().clusters[0].compiled);
  // Other data of the same shapes: the same program, fed the new data.
  TF_ASSERT_OK_AND_ASSIGN(keras::callbacks::History second,
                          model->fit(other.x, other.y_onehot, {.batch_size = 16, .verbose = 0}));
  ASSERT_EQ(model->last_execution_profile().clusters.size(), 1u);
  EXPECT_FALSE(model->last_execution_profile().clusters[0].compiled);
  EXPECT_NE(first.history["loss"][0], second.history["loss"][0]);
  // compile() discards the programs, as Keras's does.
  TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy",
                              {"accuracy"}, 4));
  TF_ASSERT_OK(model->fit(d.x, d.y_onehot, {.batch_size = 16, .verbose = 0}).status());
  EXPECT_TRUE(model->last_execution_profile().clusters[0].compiled);
}

// Not a terminal (the test's stdout is a file): one line per epoch, in
// Keras's format.
TEST_F(FitTest, ProgressBarPrintsOneKerasLinePerEpoch) {
  Configure(1);
  testing::QuadrantData d = testing::MakeQuadrants(64);
  ipu::ipu_strategy::IPUStrategy strategy;
  auto scope = strategy.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, SmallCnn());
  TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy", {"accuracy"}, 4));
  std::ostringstream captured;
  std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
  absl::StatusOr<keras::callbacks::History> h =
      model->fit(d.x, d.y_onehot, {.epochs = 2, .batch_size = 16});
  std::cout.rdbuf(old);
  TF_ASSERT_OK(h.status());
  const std::string out = captured.str();
  const std::regex line(
      R"(Epoch 1/2\n4/4 \[==============================\] - \d+s \d+(s|ms|us)/step - )"
      R"(loss: \d\.\d{4} - accuracy: \d\.\d{4}\n)"
      R"(Epoch 2/2\n4/4 \[==============================\] - \d+s \d+(s|ms|us)/step - )"
      R"(loss: \d\.\d{4} - accuracy: \d\.\d{4}\n)");
  EXPECT_TRUE(std::regex_match(out, line)) << out;
  // With the simulated time shown beside the host's.
  model->set_show_ipu_time(true);
  std::ostringstream with_ipu;
  old = std::cout.rdbuf(with_ipu.rdbuf());
  absl::Status s = model->fit(d.x, d.y_onehot, {.epochs = 1, .batch_size = 16}).status();
  std::cout.rdbuf(old);
  TF_ASSERT_OK(s);
  EXPECT_TRUE(std::regex_match(
      with_ipu.str(),
      std::regex(R"(4/4 \[=+\] - \d+s \d+(s|ms|us)/step \(IPU \d+(ms|us)/step\) - loss: .*\n)")))
      << with_ipu.str();
  // The printed values are the epoch's logs.
  char loss[16];
  std::snprintf(loss, sizeof(loss), "loss: %.4f", h->history["loss"][1]);
  EXPECT_NE(out.find(loss), std::string::npos) << out;
}

// last_session_run_seconds: the time inside the program's Session::Runs,
// a part of the call's own wall time (no speed is asserted).
TEST_F(FitTest, SessionRunSecondsArePartOfTheCall) {
  testing::QuadrantData d = testing::MakeQuadrants(64);
  auto wall = [](const std::function<void()>& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (bool on_ipu : {false, true}) {
    SCOPED_TRACE(on_ipu ? "IPU" : "CPU");
    if (on_ipu) Configure(1);
    ipu::ipu_strategy::IPUStrategy strategy;
    std::optional<ipu::ipu_strategy::StrategyScope> scope;
    if (on_ipu) scope.emplace(&strategy);
    TF_ASSERT_OK_AND_ASSIGN(auto model, SmallCnn());
    EXPECT_EQ(model->last_session_run_seconds(), 0) << "before any call";
    TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy", {"accuracy"}, 4));
    const double fit_seconds = wall([&] {
      TF_ASSERT_OK(model->fit(d.x, d.y_onehot, {.epochs = 2, .batch_size = 16, .verbose = 0}).status());
    });
    EXPECT_GT(model->last_session_run_seconds(), 0);
    EXPECT_LE(model->last_session_run_seconds(), fit_seconds);
    const double eval_seconds = wall([&] {
      TF_ASSERT_OK(model->evaluate(d.x, d.y_onehot, {.batch_size = 16, .verbose = 0}).status());
    });
    EXPECT_GT(model->last_session_run_seconds(), 0);
    EXPECT_LE(model->last_session_run_seconds(), eval_seconds) << "evaluate's own, not fit's";
  }
}

TEST_F(FitTest, IntraOpThreadsSetting) {
  EXPECT_EQ(keras::get_intra_op_parallelism_threads(), 0) << "default: one per core";
  keras::set_intra_op_parallelism_threads(1);
  EXPECT_EQ(keras::get_intra_op_parallelism_threads(), 1);
  testing::QuadrantData d = testing::MakeQuadrants(64);
  TF_ASSERT_OK_AND_ASSIGN(auto model, SmallCnn());
  TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy", {"accuracy"}));
  TF_EXPECT_OK(model->fit(d.x, d.y_onehot, {.batch_size = 16, .verbose = 0}).status());
  keras::set_intra_op_parallelism_threads(-3);
  EXPECT_EQ(keras::get_intra_op_parallelism_threads(), 0) << "negative: the default";
}

}  // namespace
}  // namespace tensorflow_ipu
