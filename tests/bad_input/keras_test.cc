// Bad input to the Keras layer: data of the wrong shape or type, empty or
// non-finite data, impossible step counts, misuse of the IPU settings. Each
// is an absl::Status naming the culprit, on the CPU and the IPU; nothing
// crashes, and the model keeps working afterwards.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/ipu/ipu_strategy.h"
#include "tensorflow_ipu/keras/backend.h"
#include "tensorflow_ipu/keras/layers/dense.h"
#include "tensorflow_ipu/keras/layers/flatten.h"
#include "tensorflow_ipu/keras/layers/input_layer.h"
#include "tensorflow_ipu/keras/layers/conv2d.h"
#include "tensorflow_ipu/keras/layers/max_pooling2d.h"
#include "tensorflow_ipu/keras/model.h"
#include "tensorflow_ipu/keras/pipeline_stage.h"
#include "tensorflow_ipu/keras/utils/np_utils.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

namespace layers = keras::layers;
using ::testing::HasSubstr;

class KerasBadInputTest : public testing::IpuTest,
                          public ::testing::WithParamInterface<bool> {
 protected:
  bool on_ipu() const { return GetParam(); }
  // Flatten -> Dense(3, softmax) over 4x2 inputs, compiled.
  std::shared_ptr<keras::Model> Model() {
    keras::backend::clear_session();
    std::optional<ipu::ipu_strategy::StrategyScope> scope;
    if (on_ipu()) {
      Configure(1);
      scope.emplace(&strategy_);
    }
    keras::KerasTensor in = keras::Input({4, 2});
    keras::KerasTensor x = layers::Flatten()(in);
    x = layers::Dense(3, {.activation = "softmax"})(x);
    absl::StatusOr<std::shared_ptr<keras::Model>> m = keras::Model::Create(in, x);
    EXPECT_EQ(m.status(), absl::OkStatus());
    EXPECT_EQ(m.value()->compile("sgd", "categorical_crossentropy", {"accuracy"}),
              absl::OkStatus());
    return *m;
  }
  static Tensor Floats(std::vector<int64_t> dims, float v) {
    TensorShape s(dims);
    return Tensor::FromVector<float>(std::vector<float>(s.num_elements(), v), s);
  }
  static Tensor OneHot(int64_t n) {
    std::vector<float> y(n * 3, 0.f);
    for (int64_t i = 0; i < n; ++i) y[i * 3 + i % 3] = 1.f;
    return Tensor::FromVector<float>(y, TensorShape({n, 3}));
  }
  ipu::ipu_strategy::IPUStrategy strategy_;
};

TEST_P(KerasBadInputTest, SamplesOfTheWrongShape) {
  auto m = Model();
  absl::Status s = m->fit(Floats({8, 4, 3}, 1.f), OneHot(8), {.batch_size = 4, .verbose = 0})
                       .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  // Still trains with the right data.
  TF_EXPECT_OK(m->fit(Floats({8, 4, 2}, 1.f), OneHot(8), {.batch_size = 4, .verbose = 0})
                   .status());
}

TEST_P(KerasBadInputTest, LabelsOfTheWrongShape) {
  auto m = Model();
  absl::Status s =
      m->fit(Floats({8, 4, 2}, 1.f), Floats({8, 5}, 0.f), {.batch_size = 4, .verbose = 0})
          .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("categorical_crossentropy needs one-hot labels"));
}

TEST_P(KerasBadInputTest, SamplesOfTheWrongType) {
  auto m = Model();
  Tensor ints = Tensor::FromVector<int32_t>(std::vector<int32_t>(64, 1), TensorShape({8, 4, 2}));
  absl::Status s = m->fit(ints, OneHot(8), {.batch_size = 4, .verbose = 0}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST_P(KerasBadInputTest, NoSamples) {
  auto m = Model();
  absl::Status s = m->fit(Floats({0, 4, 2}, 1.f), OneHot(0), {.batch_size = 4, .verbose = 0})
                       .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  absl::StatusOr<Tensor> p = m->predict(Floats({0, 4, 2}, 1.f));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << p.status();
}

TEST_P(KerasBadInputTest, ImpossibleCounts) {
  auto m = Model();
  Tensor x = Floats({8, 4, 2}, 1.f);
  EXPECT_EQ(m->fit(x, OneHot(8), {.epochs = 0, .verbose = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m->fit(x, OneHot(8), {.batch_size = -3, .verbose = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::Status s =
      m->fit(x, OneHot(8), {.batch_size = 4, .steps_per_epoch = 9, .verbose = 0}).status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("Your input does not have enough data"));
  EXPECT_EQ(m->fit(x, OneHot(8), {.batch_size = 4, .steps_per_epoch = 0, .verbose = 0})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  // A batch larger than the data: one (partial) batch on the CPU, refused
  // on the IPU.
  absl::Status big = m->fit(x, OneHot(8), {.batch_size = 1 << 30, .verbose = 0}).status();
  if (on_ipu()) {
    EXPECT_THAT(std::string(big.message()), HasSubstr("partial batch"));
  } else {
    TF_EXPECT_OK(big);
  }
}

TEST_P(KerasBadInputTest, NonFiniteDataGivesNonFiniteLossNotACrash) {
  auto m = Model();
  absl::StatusOr<keras::callbacks::History> h =
      m->fit(Floats({8, 4, 2}, std::numeric_limits<float>::quiet_NaN()), OneHot(8),
             {.batch_size = 4, .verbose = 0});
  TF_ASSERT_OK(h.status());
  EXPECT_TRUE(std::isnan(h->history["loss"][0]));
}

TEST_P(KerasBadInputTest, WeightsOfTheWrongShape) {
  auto m = Model();
  absl::Status s = m->set_weights({Floats({7, 3}, 0.f), Floats({3}, 0.f)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("not compatible with provided weight shape"));
  EXPECT_EQ(m->load_weights("/nonexistent/dir/ckpt").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(m->save_weights("/nonexistent/dir/ckpt").code(), absl::StatusCode::kNotFound);
}

TEST_P(KerasBadInputTest, MisusedIpuSettings) {
  auto m = Model();
  EXPECT_THAT(std::string(m->set_replication_options("median").message()),
              HasSubstr("Cannot parse median as a ReplicatedMetricReductionMethod."));
  EXPECT_THAT(std::string(m->set_gradient_accumulation_options(2, "max").message()),
              HasSubstr("Cannot parse max as a GradientAccumulationReductionMethod."));
  EXPECT_THAT(std::string(m->set_pipelining_options(2, std::vector<int>{-1}).message()),
              HasSubstr("`device_mapping`"));
  // A pipeline of one stage (no stage assigned at all) cannot train.
  TF_ASSERT_OK(m->set_pipelining_options(2));
  absl::Status s = m->fit(Floats({8, 4, 2}, 1.f), OneHot(8), {.batch_size = 4, .verbose = 0})
                       .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("must have an associated pipeline stage"));
}

// Sizes near the limits of int64: refused by name when the model is built
// or the call made, never an overflow, a huge allocation or a crash.
TEST_P(KerasBadInputTest, SizesBeyondWhatFits) {
  keras::backend::clear_session();
  const int64_t huge = std::numeric_limits<int64_t>::max();
  keras::KerasTensor big_input = keras::Input({int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_EQ(big_input.status().code(), absl::StatusCode::kInvalidArgument) << big_input.status();
  EXPECT_THAT(std::string(big_input.status().message()), HasSubstr("more than 2^31 elements"));
  EXPECT_EQ(keras::Input({4, 0}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(keras::Input({-1}).status().code(), absl::StatusCode::kInvalidArgument);

  keras::KerasTensor in = keras::Input({1024});
  keras::KerasTensor wide = layers::Dense(int64_t{1} << 62)(in);
  EXPECT_THAT(std::string(wide.status().message()),
              HasSubstr("the kernel of layer \"dense\""));
  keras::KerasTensor image = keras::Input({8, 8, 1});
  keras::KerasTensor filters = layers::Conv2D(int64_t{1} << 40, {3, 3})(image);
  EXPECT_EQ(filters.status().code(), absl::StatusCode::kInvalidArgument) << filters.status();
  keras::KerasTensor window = layers::Conv2D(2, {huge, huge})(image);
  EXPECT_EQ(window.status().code(), absl::StatusCode::kInvalidArgument) << window.status();
  keras::KerasTensor stride =
      layers::Conv2D(2, {3, 3}, {.strides = {huge, huge}, .padding = "same"})(image);
  TF_EXPECT_OK(stride.status());
  EXPECT_EQ(stride.shape(), (keras::Shape{-1, 1, 1, 2}));
  EXPECT_EQ(layers::MaxPooling2D({0, 2})(image).status().code(),
            absl::StatusCode::kInvalidArgument);

  auto m = Model();
  Tensor x = Floats({8, 4, 2}, 1.f);
  // A batch of 2^63 - 1 rounds up to one batch without overflowing.
  absl::Status s = m->fit(x, OneHot(8), {.batch_size = huge, .verbose = 0}).status();
  if (on_ipu()) {
    EXPECT_THAT(std::string(s.message()), HasSubstr("partial batch"));
  } else {
    TF_EXPECT_OK(s);
  }
  EXPECT_EQ(m->fit(x, OneHot(8), {.batch_size = 4, .steps_per_epoch = -1, .verbose = 0})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m->evaluate(x, OneHot(8), {.batch_size = 4, .steps = huge, .verbose = 0})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m->compile("sgd", "mse", {}, -1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m->set_gradient_accumulation_options(-1).code(),
            absl::StatusCode::kInvalidArgument);
  // The model still trains.
  TF_EXPECT_OK(m->fit(x, OneHot(8), {.batch_size = 4, .verbose = 0}).status());

  Tensor labels = Tensor::FromVector<int32_t>({0, 1}, TensorShape({2}));
  absl::StatusOr<Tensor> onehot = keras::utils::to_categorical(labels, huge);
  EXPECT_EQ(onehot.status().code(), absl::StatusCode::kInvalidArgument) << onehot.status();
  EXPECT_EQ(keras::utils::to_categorical(labels, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(keras::utils::to_categorical(labels, 1).status().code(),
            absl::StatusCode::kInvalidArgument);  // label 1 outside [0, 1)
}

// Pipeline stages beyond what the model can hold.
TEST_P(KerasBadInputTest, PipelineStagesBeyondTheLayers) {
  keras::backend::clear_session();
  absl::StatusOr<std::shared_ptr<keras::Sequential>> seq = keras::Sequential::Create(
      {layers::InputLayer({4, 2}), layers::Flatten(), layers::Dense(3)});
  TF_ASSERT_OK(seq.status());
  EXPECT_EQ((*seq)->set_pipeline_stage_assignment({0, std::numeric_limits<int>::max()}).code(),
            absl::StatusCode::kInvalidArgument);
  if (!on_ipu()) return;
  Configure(2);
  auto scope = strategy_.scope();
  keras::KerasTensor in = keras::Input({4, 2});
  keras::KerasTensor x;
  {
    ipu::keras::PipelineStage stage(0);
    x = layers::Flatten()(in);
  }
  {
    ipu::keras::PipelineStage stage(std::numeric_limits<int>::max());
    x = layers::Dense(3, {.activation = "softmax"})(x);
  }
  absl::StatusOr<std::shared_ptr<keras::Model>> m = keras::Model::Create(in, x);
  TF_ASSERT_OK(m.status());
  TF_ASSERT_OK((*m)->compile("sgd", "categorical_crossentropy", {}, 4));
  TF_ASSERT_OK((*m)->set_pipelining_options(4));
  absl::Status s = (*m)->fit(Floats({16, 4, 2}, 1.f), OneHot(16), {.batch_size = 4, .verbose = 0})
                       .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("but the model has only 2 layers"));
}

INSTANTIATE_TEST_SUITE_P(CpuAndIpu, KerasBadInputTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "Ipu" : "Cpu";
                         });

}  // namespace
}  // namespace tensorflow_ipu
