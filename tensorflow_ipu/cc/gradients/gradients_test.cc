// AddSymbolicGradients itself: values, sums over paths, unconnected inputs,
// stopping at inputs and the error for an op without a gradient.
#include "tensorflow_ipu/cc/gradients/gradients.h"
#include "unsupported/Eigen/CXX11/Tensor"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;

TEST(GradientsTest, ChainRuleAndPathsAreSummed) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({2}));
  // y = x*x + 3x: dy/dx = 2x + 3.
  auto y = ops::Add(root, ops::Mul(root, x, x), ops::Mul(root, x, 3.f));
  std::vector<Output> grads;
  TF_ASSERT_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  {
    absl::Status status = session.Run({{x, {1.f, -2.f}}}, {grads[0]}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(out[0].DebugString(), "[ 5. -1.]");
}

TEST(GradientsTest, SeveralOutputsAndInputs) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({}));
  auto b = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({}));
  auto p = ops::Mul(root, a, b);       // dp/da = b, dp/db = a
  auto q = ops::Square(root, a);       // dq/da = 2a
  std::vector<Output> grads;
  TF_ASSERT_OK(AddSymbolicGradients(root, {p, q}, {a, b}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  {
    absl::Status status = session.Run({{a, 3.f}, {b, 5.f}}, {grads[0], grads[1]}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(out[0].scalar<float>()(), 5.f + 6.f);
  EXPECT_EQ(out[1].scalar<float>()(), 3.f);
}

TEST(GradientsTest, UnconnectedInputGetsZeros) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({3}));
  auto z = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({3}));
  auto y = ops::Exp(root, x);
  std::vector<Output> grads;
  TF_ASSERT_OK(AddSymbolicGradients(root, {y}, {z}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  {
    absl::Status status = session.Run({{z, {1.f, 2.f, 3.f}}}, {grads[0]}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(out[0].DebugString(), "[0. 0. 0.]");
}

TEST(GradientsTest, IntegerPathsCarryNoGradient) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({3}));
  // ArgMax has no gradient; y depends on x only through the Square.
  auto idx = ops::Cast(root, ops::ArgMax(root, x, 0), DT_FLOAT);
  auto y = ops::Add(root, ops::Sum(root, ops::Square(root, x), 0), idx);
  std::vector<Output> grads;
  TF_ASSERT_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  {
    absl::Status status = session.Run({{x, {1.f, 2.f, 3.f}}}, {grads[0]}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(out[0].DebugString(), "[2. 4. 6.]");
}

TEST(GradientsTest, OpWithoutGradientIsNamed) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({2, 2}));
  auto y = ops::Tile(root.WithOpName("tiled"), x, {2, 1});
  std::vector<Output> grads;
  absl::Status s = AddSymbolicGradients(root, {y}, {x}, &grads);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()), HasSubstr("op 'Tile'"));
}

TEST(GradientsTest, GradientsStopAtTheRequestedInputs) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({2}));
  // Tile lies upstream of the input h: it must not be differentiated.
  auto h = ops::Relu(root, ops::Tile(root, x, {1}));
  auto y = ops::Square(root, h);
  std::vector<Output> grads;
  TF_ASSERT_OK(AddSymbolicGradients(root, {y}, {h}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  {
    absl::Status status = session.Run({{x, {1.f, -4.f}}}, {grads[0]}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(out[0].DebugString(), "[2. 0.]");
}

}  // namespace
}  // namespace tensorflow_ipu
