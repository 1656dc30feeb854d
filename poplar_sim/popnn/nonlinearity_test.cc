#include "poplar_sim/popnn/nonlinearity.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/testing/run_util.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace popnn {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::RunBothModes;

Tensor Const(Graph& g, std::vector<size_t> shape, std::vector<float> v,
             Type t = FLOAT) {
  Tensor c = g.addConstant<float>(t, std::move(shape), absl::MakeConstSpan(v));
  poputil::mapTensorLinearly(g, c);
  return c;
}

TEST(NonLinearityTest, ForwardAndGradients) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor x = Const(g, {4}, {-2, -0.5, 0.5, 2});
    Tensor dy = Const(g, {4}, {1, 2, 3, 4});
    Tensor relu = nonLinearity(g, NonLinearityType::RELU, x, p);
    Tensor sig = nonLinearity(g, NonLinearityType::SIGMOID, x, p);
    Tensor th = nonLinearity(g, NonLinearityType::TANH, x, p);
    return std::vector<Tensor>{
        relu, nonLinearityInputGradient(g, NonLinearityType::RELU, relu, dy, p),
        nonLinearityInputGradient(g, NonLinearityType::SIGMOID, sig, dy, p),
        nonLinearityInputGradient(g, NonLinearityType::TANH, th, dy, p)};
  });
  EXPECT_THAT(r[0], ElementsAre(0, 0, 0.5, 2));
  EXPECT_THAT(r[1], ElementsAre(0, 0, 3, 4));
  const double s = 1 / (1 + std::exp(2.0));  // sigmoid(-2)
  EXPECT_THAT(r[2][0], DoubleNear(1 * s * (1 - s), 1e-6));
  EXPECT_THAT(r[3][3], DoubleNear(4 * (1 - std::tanh(2.0) * std::tanh(2.0)), 1e-5));
}

TEST(SoftmaxTest, RowsSumToOneAndLogSoftmax) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor x = Const(g, {2, 3}, {1, 2, 3, 0, 0, 0});
    return std::vector<Tensor>{softmax(g, x, p), logSoftmax(g, x, p)};
  });
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_THAT(r[0], ElementsAre(DoubleNear(std::exp(1.0) / z, 1e-6),
                                DoubleNear(std::exp(2.0) / z, 1e-6),
                                DoubleNear(std::exp(3.0) / z, 1e-6),
                                DoubleNear(1.0 / 3, 1e-6), DoubleNear(1.0 / 3, 1e-6),
                                DoubleNear(1.0 / 3, 1e-6)));
  EXPECT_THAT(r[1][2], DoubleNear(3 - std::log(z), 1e-6));
  EXPECT_THAT(r[1][4], DoubleNear(-std::log(3.0), 1e-6));
}

TEST(CrossEntropyTest, SparseAndDense) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor logits = Const(g, {2, 3}, {1, 2, 3, 0, 0, 0});
    Tensor labels = Const(g, {2}, {2, 0}, INT);
    Tensor onehot = Const(g, {2, 3}, {0, 0, 1, 1, 0, 0});
    CrossEntropy s = sparseSoftmaxCrossEntropy(g, logits, labels, p);
    CrossEntropy d = softmaxCrossEntropy(g, logits, onehot, p);
    return std::vector<Tensor>{s.loss, s.gradient, d.loss, d.gradient};
  });
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_THAT(r[0], ElementsAre(DoubleNear(std::log(z) - 3, 1e-6),
                                DoubleNear(std::log(3.0), 1e-6)));
  EXPECT_THAT(r[1][2], DoubleNear(std::exp(3.0) / z - 1, 1e-6));
  EXPECT_THAT(r[1][3], DoubleNear(1.0 / 3 - 1, 1e-6));
  EXPECT_THAT(r[1][4], DoubleNear(1.0 / 3, 1e-6));
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(r[2][i], r[0][i], 1e-6);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(r[3][i], r[1][i], 1e-6);
}

// A row's values do not depend on where it lies in memory: rows of 37
// classes start at every offset within a vector, and equal rows give the
// same bits (an exponential evaluated while writing an unaligned row took
// Eigen's scalar exp for the leading elements and its vector exp for the
// rest, which differ in the last bit).
TEST(CrossEntropyTest, EveryRowPositionGivesTheSameBits) {
  constexpr size_t kRows = 16, kCols = 37;
  std::vector<float> logits, labels;
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t j = 0; j < kCols; ++j) {
      logits.push_back(std::sin(0.7f * j) * 3);
      labels.push_back(j % 5 == 0 ? 0.125f : 0.0f);
    }
  }
  auto out = RunBothModes([&](Graph& g, program::Sequence& p) {
    Tensor x = Const(g, {kRows, kCols}, logits);
    CrossEntropy d = softmaxCrossEntropy(g, x, Const(g, {kRows, kCols}, labels), p);
    CrossEntropy s = sparseSoftmaxCrossEntropy(
        g, x, Const(g, {kRows}, std::vector<float>(kRows, 36), INT), p);
    return std::vector<Tensor>{softmax(g, x, p), logSoftmax(g, x, p), d.gradient, s.gradient,
                               d.loss, s.loss};
  });
  ASSERT_EQ(out.size(), 6u);
  for (size_t k = 0; k < 4; ++k) {
    for (size_t r = 1; r < kRows; ++r) {
      for (size_t j = 0; j < kCols; ++j) {
        ASSERT_EQ(out[k][r * kCols + j], out[k][j]) << "output " << k << ", row " << r;
      }
    }
  }
  for (size_t k = 4; k < 6; ++k) {
    for (size_t r = 1; r < kRows; ++r) EXPECT_EQ(out[k][r], out[k][0]) << "loss " << k;
  }
}

TEST(CrossEntropyTest, BadLabelIsARunTimeError) {
  Device device = testing::SmallDevice(4);
  Graph g(device.getTarget());
  program::Sequence p;
  Tensor logits = Const(g, {2, 3}, {1, 2, 3, 0, 0, 0});
  Tensor labels = Const(g, {2}, {2, 7}, INT);
  sparseSoftmaxCrossEntropy(g, logits, labels, p, "xent");
  auto e = Engine::create(g, p);
  ASSERT_TRUE(e.ok()) << e.status();
  {
    absl::Status status = e->load(device);
    ASSERT_TRUE(status.ok()) << status;
  }
  absl::Status s = e->run();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("label 7 of row 1"));
  Graph g2(device.getTarget());
  Tensor l2 = Const(g2, {2, 3}, {1, 2, 3, 0, 0, 0});
  EXPECT_FALSE(sparseSoftmaxCrossEntropy(g2, l2, Const(g2, {3}, {0, 0, 0}, INT), p).loss.valid());
}

}  // namespace
}  // namespace popnn
}  // namespace poplar_sim
