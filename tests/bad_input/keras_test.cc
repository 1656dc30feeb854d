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
#include "tensorflow_ipu/keras/model.h"
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

INSTANTIATE_TEST_SUITE_P(CpuAndIpu, KerasBadInputTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "Ipu" : "Cpu";
                         });

}  // namespace
}  // namespace tensorflow_ipu
