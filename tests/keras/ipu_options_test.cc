// The IPU settings of the Keras layer: replication, gradient accumulation,
// pipelining (PipelineStage scopes and stage assignments), and the
// vendor's checks of them, with their messages.
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/logging.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/ipu/ipu_strategy.h"
#include "tensorflow_ipu/keras/initializers.h"
#include "tensorflow_ipu/keras/layers/conv2d.h"
#include "tensorflow_ipu/keras/layers/dense.h"
#include "tensorflow_ipu/keras/layers/flatten.h"
#include "tensorflow_ipu/keras/layers/input_layer.h"
#include "tensorflow_ipu/keras/layers/max_pooling2d.h"
#include "tensorflow_ipu/keras/model.h"
#include "tensorflow_ipu/keras/pipeline_stage.h"
#include "tests/ipu/ipu_test_util.h"
#include "tests/keras/keras_test_data.h"

namespace tensorflow_ipu {
namespace {

namespace layers = keras::layers;
using ::testing::HasSubstr;

class IpuOptionsTest : public testing::IpuTest {
 protected:
  // One silent epoch of the fixture's data, in batches of `batch_size`.
  absl::Status FitOnce(keras::Model& model, int64_t batch_size = 16) {
    return model.fit(data_.x, data_.y_onehot, {.batch_size = batch_size, .verbose = 0})
        .status();
  }

  ipu::ipu_strategy::IPUStrategy strategy_;
  testing::QuadrantData data_ = testing::MakeQuadrants(256);
};

// The small CNN, split in two stages when `stages`.
absl::StatusOr<std::shared_ptr<keras::Model>> Cnn(bool stages) {
  keras::utils::set_random_seed(3);
  keras::KerasTensor in = keras::Input({8, 8, 1});
  keras::KerasTensor x;
  {
    std::optional<ipu::keras::PipelineStage> s;
    if (stages) s.emplace(0);
    x = layers::Conv2D(4, {3, 3}, {.activation = "relu"})(in);
    x = layers::MaxPooling2D({2, 2})(x);
  }
  {
    std::optional<ipu::keras::PipelineStage> s;
    if (stages) s.emplace(1);
    x = layers::Flatten()(x);
    x = layers::Dense(4, {.activation = "softmax"})(x);
  }
  return keras::Model::Create(in, x);
}

TEST_F(IpuOptionsTest, ReplicatedModelTrainsOnTwoIpus) {
  Configure(2);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(false));
  TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy",
                              {"accuracy"}, 8));
  // 256 / 16 = 16 batches, 8 per replica: one execution per epoch.
  TF_ASSERT_OK_AND_ASSIGN(keras::callbacks::History h,
                          model->fit(data_.x, data_.y_onehot,
                                     {.epochs = 4, .batch_size = 16, .verbose = 0}));
  EXPECT_LT(h.history["loss"][3], h.history["loss"][0]);
  TF_ASSERT_OK_AND_ASSIGN(std::vector<double> scores,
                          model->evaluate(data_.x, data_.y_onehot,
                                          {.batch_size = 16, .verbose = 0}));
  EXPECT_GT(scores[1], 0.5);
  // Predictions come back in the batches' order, replicas interleaved.
  TF_ASSERT_OK_AND_ASSIGN(Tensor p, model->predict(data_.x, {.batch_size = 16}));
  EXPECT_EQ(p.shape(), TensorShape({256, 4}));
}

// set_replication_options: the same training reported as the replicas'
// SUM is exactly twice their MEAN, and NONE (the last replica's) differs.
TEST_F(IpuOptionsTest, ReplicatedMetricReductions) {
  Configure(2);
  auto scope = strategy_.scope();
  std::map<std::string, double> loss;
  std::vector<Tensor> initial;
  for (const std::string method : {"MEAN", "sum", "NONE"}) {
    TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(false));
    if (initial.empty()) {
      TF_ASSERT_OK_AND_ASSIGN(initial, model->get_weights());
    } else {
      TF_ASSERT_OK(model->set_weights(initial));
    }
    TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy", {},
                                8));
    TF_ASSERT_OK(model->set_replication_options(method));
    TF_ASSERT_OK_AND_ASSIGN(keras::callbacks::History h,
                            model->fit(data_.x, data_.y_onehot,
                                       {.batch_size = 16, .verbose = 0, .shuffle = false}));
    loss[method] = h.history["loss"][0];
  }
  EXPECT_NEAR(loss["sum"], 2 * loss["MEAN"], 1e-6);
  EXPECT_NE(loss["NONE"], loss["MEAN"]);
}

TEST_F(IpuOptionsTest, FeedQueueOptions) {
  Configure(1);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(false));
  TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy", {}, 16));
  EXPECT_THAT(std::string(model->set_infeed_queue_options({.prefetch_depth = 0}).message()),
              HasSubstr("prefetch_depth must be greater than zero, got 0"));
  EXPECT_THAT(std::string(model->set_outfeed_queue_options({.buffer_depth = -2}).message()),
              HasSubstr("buffer_depth must be greater than zero, got -2"));
  TF_ASSERT_OK(model->set_infeed_queue_options({.prefetch_depth = 8}));
  TF_ASSERT_OK(model->set_outfeed_queue_options({.buffer_depth = 4}));
  TF_EXPECT_OK(FitOnce(*model));
}

TEST_F(IpuOptionsTest, StepsPerExecutionMustDivideTheStepsOfAReplica) {
  Configure(2);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(false));
  TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy", {}, 3));
  absl::Status h = FitOnce(*model, 16);
  EXPECT_EQ(h.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(h.message()),
              HasSubstr("`steps_per_execution` (3) must be a divisor of the number of batches "
                        "(8) in the dataset provided to this replica."));
}

TEST_F(IpuOptionsTest, PartialBatchIsRefusedOnTheIpu) {
  Configure(1);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(false));
  TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy"));
  absl::Status h = FitOnce(*model, 24);
  EXPECT_EQ(h.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(h.message()),
              HasSubstr("has a partial batch, which could result in data being dropped. "
                        "Either adjust the `batch_size` of your model (currently set to 24)"));
}

TEST_F(IpuOptionsTest, GradientAccumulationMustDivideStepsPerExecution) {
  Configure(1);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(false));
  TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy", {}, 4));
  TF_ASSERT_OK(model->set_gradient_accumulation_options(3));
  absl::Status h = FitOnce(*model, 16);
  EXPECT_EQ(h.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(h.message()),
              HasSubstr("the current `steps_per_execution` value (set to 4) is not divisible "
                        "by `gradient_accumulation_steps_per_replica` (3)"));
  EXPECT_THAT(std::string(model->set_gradient_accumulation_options(0).message()),
              HasSubstr("Expected `gradient_accumulation_steps_per_replica` to be a positive "
                        "integer, but got 0 instead."));
}

TEST_F(IpuOptionsTest, AccumulatedTrainingLearns) {
  Configure(1);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(false));
  TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy",
                              {"accuracy"}, 16));
  TF_ASSERT_OK(model->set_gradient_accumulation_options(2, "mean"));
  TF_ASSERT_OK_AND_ASSIGN(keras::callbacks::History h,
                          model->fit(data_.x, data_.y_onehot,
                                     {.epochs = 4, .batch_size = 16, .verbose = 0}));
  for (double l : h.history["loss"]) {
    EXPECT_TRUE(l > 0 && l < 2) << "a cross-entropy of 4 classes, not " << l;
  }
  EXPECT_LT(h.history["loss"][3], h.history["loss"][0]);
}

TEST_F(IpuOptionsTest, PipelinedModelNeedsAccumulationThenTrains) {
  Configure(2);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(true));
  std::vector<std::optional<int>> stages = model->get_pipeline_stage_assignment();
  ASSERT_EQ(stages.size(), 4u);
  EXPECT_EQ(stages[0], 0);
  EXPECT_EQ(stages[3], 1);
  TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy",
                              {"accuracy"}, 16));
  TF_ASSERT_OK(model->set_pipelining_options(std::nullopt));
  absl::Status refused = FitOnce(*model, 16);
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("`gradient_accumulation_steps_per_replica` has not been set through "
                        "`set_pipelining_options()`"));
  TF_ASSERT_OK(model->set_pipelining_options(4));
  TF_ASSERT_OK_AND_ASSIGN(keras::callbacks::History h,
                          model->fit(data_.x, data_.y_onehot,
                                     {.epochs = 4, .batch_size = 16, .verbose = 0}));
  EXPECT_LT(h.history["loss"][3], h.history["loss"][0]);
  TF_ASSERT_OK_AND_ASSIGN(std::vector<double> scores,
                          model->evaluate(data_.x, data_.y_onehot,
                                          {.batch_size = 16, .verbose = 0}));
  EXPECT_EQ(scores.size(), 2u);
}

TEST_F(IpuOptionsTest, PipelineStageOutsideAStrategyIsAnError) {
  keras::KerasTensor in = keras::Input({8, 8, 1});
  ipu::keras::PipelineStage stage(0);
  keras::KerasTensor x = layers::Flatten()(in);
  EXPECT_EQ(x.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(x.status().message()), HasSubstr("IPUStrategy"));
}

TEST_F(IpuOptionsTest, SequentialStageAssignmentRules) {
  TF_ASSERT_OK_AND_ASSIGN(
      auto model, keras::Sequential::Create({layers::InputLayer({8, 8, 1}), layers::Flatten(),
                                             layers::Dense(8), layers::Dense(4)}));
  EXPECT_THAT(std::string(model->set_pipeline_stage_assignment({1, 1, 1}).message()),
              HasSubstr("The first layer in a pipelined sequential model needs to be assigned "
                        "to the 0th pipeline stage, however it was assigned to 1."));
  EXPECT_THAT(std::string(model->set_pipeline_stage_assignment({0, 2, 2}).message()),
              HasSubstr("has been assigned to pipeline stage 2, however the previous layer in "
                        "the Sequential model was assigned to pipeline stage 0."));
  EXPECT_THAT(std::string(model->set_pipeline_stage_assignment({0, 1}).message()),
              HasSubstr("The length of the provided `pipeline_stage_assignment` (2) does not "
                        "match the number of layers in the graph (3)."));
  TF_EXPECT_OK(model->set_pipeline_stage_assignment({0, 0, 1}));
  std::vector<std::string> lines;
  model->print_pipeline_stage_assignment_summary(
      [&](const std::string& l) { lines.push_back(l); });
  ASSERT_GE(lines.size(), 5u);
  EXPECT_THAT(lines[0], HasSubstr("Model: \"sequential"));
  EXPECT_THAT(lines[2], HasSubstr("Layer (type)"));
  EXPECT_THAT(lines[2], HasSubstr("Pipeline Stage"));
}

TEST_F(IpuOptionsTest, PipelineNeedsAMultipleOfItsIpus) {
  Configure(1);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(true));
  TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy", {}, 16));
  TF_ASSERT_OK(model->set_pipelining_options(4));
  absl::Status s = FitOnce(*model);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Current device has 1 IPUs attached, however the current model "
                        "requires a multiple of 2 IPUs."));
}

TEST_F(IpuOptionsTest, EffectiveBatchSizeLine) {
  Configure(2);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(false));
  TF_ASSERT_OK(model->compile("sgd", "categorical_crossentropy", {}, 8));
  TF_ASSERT_OK(model->set_gradient_accumulation_options(4));
  logging::ScopedLogCapture logs;
  TF_ASSERT_OK(FitOnce(*model));
  std::vector<std::string> lines = logs.messages();
  EXPECT_THAT(lines, ::testing::Contains(
                         "Training is distributed and accumulating 4 batches per optimizer "
                         "step across 2 replicas, your effective batch size is 128."));
}

// A Sequential model pipelined by set_pipeline_stage_assignment trains
// like the same model unpipelined with the same accumulation: the same
// weights after an epoch, within float tolerance.
TEST_F(IpuOptionsTest, SequentialPipelineTrainsLikeAccumulation) {
  std::vector<Tensor> trained[2];
  for (int pipelined = 0; pipelined < 2; ++pipelined) {
    ipu::IpuSystem::Get().Reset();
    Configure(pipelined ? 2 : 1);
    auto scope = strategy_.scope();
    keras::utils::set_random_seed(21);
    TF_ASSERT_OK_AND_ASSIGN(
        auto model, keras::Sequential::Create({layers::InputLayer({8, 8, 1}), layers::Flatten(),
                                               layers::Dense(16, {.activation = "relu"}),
                                               layers::Dense(4, {.activation = "softmax"})}));
    TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy", {},
                                16));
    if (pipelined) {
      TF_ASSERT_OK(model->set_pipeline_stage_assignment({0, 0, 1}));
      TF_ASSERT_OK(model->set_pipelining_options(4, std::nullopt,
                                                 ipu::pipelining_ops::PipelineSchedule::Grouped,
                                                 "mean"));
    } else {
      TF_ASSERT_OK(model->set_gradient_accumulation_options(4, "mean"));
    }
    TF_ASSERT_OK(model->fit(data_.x, data_.y_onehot,
                            {.batch_size = 16, .verbose = 0, .shuffle = false})
                     .status());
    TF_ASSERT_OK_AND_ASSIGN(trained[pipelined], model->get_weights());
  }
  ASSERT_EQ(trained[0].size(), trained[1].size());
  for (size_t w = 0; w < trained[0].size(); ++w) {
    for (int64_t i = 0; i < trained[0][w].NumElements(); ++i) {
      ASSERT_NEAR(trained[0][w].data<float>()[i], trained[1][w].data<float>()[i], 1e-5)
          << "weight " << w << " element " << i;
    }
  }
}

// The Interleaved schedule trains to the same weights as Grouped (the
// schedule changes when stages run, not what they compute), and a
// pipelined model predicts in the batches' order.
TEST_F(IpuOptionsTest, InterleavedScheduleAndPipelinedPredict) {
  std::vector<Tensor> trained[2];
  Tensor predictions[2];
  for (int interleaved = 0; interleaved < 2; ++interleaved) {
    ipu::IpuSystem::Get().Reset();
    Configure(2);
    auto scope = strategy_.scope();
    TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(true));
    TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy", {},
                                16));
    TF_ASSERT_OK(model->set_pipelining_options(
        4, std::nullopt,
        interleaved ? ipu::pipelining_ops::PipelineSchedule::Interleaved
                    : ipu::pipelining_ops::PipelineSchedule::Grouped));
    TF_ASSERT_OK(model->fit(data_.x, data_.y_onehot,
                            {.batch_size = 16, .verbose = 0, .shuffle = false})
                     .status());
    TF_ASSERT_OK_AND_ASSIGN(trained[interleaved], model->get_weights());
    TF_ASSERT_OK_AND_ASSIGN(predictions[interleaved], model->predict(data_.x, {.batch_size = 16}));
    EXPECT_EQ(predictions[interleaved].shape(), TensorShape({256, 4}));
  }
  for (size_t w = 0; w < trained[0].size(); ++w) {
    for (int64_t i = 0; i < trained[0][w].NumElements(); ++i) {
      ASSERT_NEAR(trained[0][w].data<float>()[i], trained[1][w].data<float>()[i], 1e-5)
          << "weight " << w << " element " << i;
    }
  }
  for (int64_t i = 0; i < predictions[0].NumElements(); ++i) {
    ASSERT_NEAR(predictions[0].data<float>()[i], predictions[1].data<float>()[i], 1e-5) << i;
  }
}

TEST_F(IpuOptionsTest, FitAndEvaluateABatchedDataset) {
  Configure(1);
  auto scope = strategy_.scope();
  TF_ASSERT_OK_AND_ASSIGN(auto model, Cnn(false));
  TF_ASSERT_OK(model->compile(keras::optimizers::SGD(0.1), "categorical_crossentropy",
                              {"accuracy"}, 4));
  TF_ASSERT_OK_AND_ASSIGN(data::Dataset slices,
                          data::Dataset::FromTensorSlices({data_.x, data_.y_onehot}));
  data::Dataset batches = slices.Batch(16, /*drop_remainder=*/true);
  TF_ASSERT_OK_AND_ASSIGN(keras::callbacks::History h,
                          model->fit(batches, {.epochs = 3, .verbose = 0}));
  EXPECT_LT(h.history["loss"][2], h.history["loss"][0]);
  TF_ASSERT_OK_AND_ASSIGN(std::vector<double> scores, model->evaluate(batches, {.verbose = 0}));
  EXPECT_EQ(scores.size(), 2u);
  // Without drop_remainder the batch dimension is unknown: the vendor's
  // message.
  absl::Status s = model->fit(slices.Batch(16, false), {.verbose = 0}).status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("If using batch() make sure to set "
                                                  "`drop_remainder=True`."));
  // An infinite dataset needs steps_per_epoch.
  EXPECT_THAT(std::string(model->fit(batches.Repeat(), {.verbose = 0}).status().message()),
              HasSubstr("When providing an infinite dataset, you must specify the number of "
                        "steps to run"));
  TF_EXPECT_OK(model->fit(batches.Repeat(), {.steps_per_epoch = 8, .verbose = 0}).status());
}

}  // namespace
}  // namespace tensorflow_ipu
