// Every math gradient against central finite differences, in double.
#include <functional>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/gradients/gradient_checker.h"
#include "tensorflow_ipu/cc/gradients/gradients.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"

namespace tensorflow_ipu {
namespace {

constexpr double kTolerance = 1e-6;

Tensor Values(const TensorShape& shape, std::vector<double> v) {
  return Tensor::FromVector<double>(v, shape);
}

using Unary = std::function<Output(const Scope&, Output)>;
using Binary = std::function<Output(const Scope&, Output, Output)>;

double UnaryError(const Unary& f, const Tensor& x_value, double delta = 1e-6) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, ops::Placeholder::Shape(x_value.shape()));
  Output y = f(root, x);
  absl::StatusOr<double> err = ComputeGradientError(root, x, x_value, y, delta);
  EXPECT_TRUE(err.ok()) << err.status();
  return err.value_or(1e9);
}

// The error of d/dx with y fixed, and of d/dy with x fixed.
std::pair<double, double> BinaryErrors(const Binary& f, const Tensor& xv,
                                       const Tensor& yv) {
  double errs[2];
  for (int wrt = 0; wrt < 2; ++wrt) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DT_DOUBLE, ops::Placeholder::Shape(xv.shape()));
    auto y = ops::Placeholder(root, DT_DOUBLE, ops::Placeholder::Shape(yv.shape()));
    // The other operand is a constant.
    Output z = wrt == 0 ? f(root, x, ops::Const(root, yv))
                        : f(root, ops::Const(root, xv), y);
    absl::StatusOr<double> err = wrt == 0
                                     ? ComputeGradientError(root, x, xv, z)
                                     : ComputeGradientError(root, y, yv, z);
    EXPECT_TRUE(err.ok()) << err.status();
    errs[wrt] = err.value_or(1e9);
  }
  return {errs[0], errs[1]};
}

const TensorShape k23({2, 3});
const Tensor kX = Values(k23, {0.5, -1.2, 2.0, 0.3, 1.7, -0.8});
const Tensor kPositive = Values(k23, {0.5, 1.2, 2.0, 0.3, 1.7, 0.8});
// Differs from kX everywhere, so Maximum and Minimum have no ties (where the
// derivative does not exist).
const Tensor kOther = Values(k23, {0.6, 1.2, 2.1, 0.35, 1.6, 0.8});

TEST(MathGradTest, BroadcastingBinaryOps) {
  const Tensor row = Values(TensorShape({3}), {1.5, -0.7, 2.5});
  const Tensor col = Values(TensorShape({2, 1}), {0.9, -1.1});
  const Tensor scalar = Values(TensorShape({}), {1.3});
  std::vector<std::pair<const char*, Binary>> ops_under_test = {
      {"Add", [](const Scope& s, Output a, Output b) { return ops::Add(s, a, b); }},
      {"AddV2", [](const Scope& s, Output a, Output b) { return ops::AddV2(s, a, b); }},
      {"Sub", [](const Scope& s, Output a, Output b) { return ops::Sub(s, a, b); }},
      {"Mul", [](const Scope& s, Output a, Output b) { return ops::Mul(s, a, b); }},
      {"RealDiv", [](const Scope& s, Output a, Output b) { return ops::RealDiv(s, a, b); }},
      {"Maximum", [](const Scope& s, Output a, Output b) { return ops::Maximum(s, a, b); }},
      {"Minimum", [](const Scope& s, Output a, Output b) { return ops::Minimum(s, a, b); }},
  };
  for (const auto& [name, f] : ops_under_test) {
    for (const Tensor* other : {&kOther, &row, &col, &scalar}) {
      auto [ex, ey] = BinaryErrors(f, kX, *other);
      EXPECT_LT(ex, kTolerance) << name << " d/dx, y of shape "
                                << other->shape().DebugString();
      EXPECT_LT(ey, kTolerance) << name << " d/dy, y of shape "
                                << other->shape().DebugString();
    }
  }
}

TEST(MathGradTest, UnaryOps) {
  std::vector<std::tuple<const char*, Unary, const Tensor*>> cases = {
      {"Neg", [](const Scope& s, Output x) { return ops::Neg(s, x); }, &kX},
      {"Square", [](const Scope& s, Output x) { return ops::Square(s, x); }, &kX},
      {"Sqrt", [](const Scope& s, Output x) { return ops::Sqrt(s, x); }, &kPositive},
      {"Rsqrt", [](const Scope& s, Output x) { return ops::Rsqrt(s, x); }, &kPositive},
      {"Exp", [](const Scope& s, Output x) { return ops::Exp(s, x); }, &kX},
      {"Log", [](const Scope& s, Output x) { return ops::Log(s, x); }, &kPositive},
      {"Tanh", [](const Scope& s, Output x) { return ops::Tanh(s, x); }, &kX},
      {"Sigmoid", [](const Scope& s, Output x) { return ops::Sigmoid(s, x); }, &kX},
      {"Relu", [](const Scope& s, Output x) { return ops::Relu(s, x); }, &kX},
      {"Reciprocal", [](const Scope& s, Output x) { return ops::Reciprocal(s, x); }, &kPositive},
      {"Identity", [](const Scope& s, Output x) { return ops::Identity(s, x); }, &kX},
  };
  for (const auto& [name, f, x] : cases) {
    EXPECT_LT(UnaryError(f, *x), kTolerance) << name;
  }
}

// Relu's gradient masks with the Relu's output, as TensorFlow's Python
// gradient does, so that the pre-activation has the Relu as its only reader
// and a dense layer's MatMul -> BiasAdd -> Relu stays one fused kernel run
// in training.
TEST(MathGradTest, ReluGradientReadsTheReluOutput) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({2, 3}));
  auto y = ops::Relu(root, x);
  std::vector<Output> grads;
  absl::Status s = AddSymbolicGradients(root, {y}, {x}, &grads);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(grads.size(), 1u);
  const Node* grad = grads[0].node();
  ASSERT_EQ(grad->op(), "ReluGrad");
  EXPECT_EQ(grad->input(1).node, y.node()) << grad->input(1).node->name();
  EXPECT_EQ(grad->input(1).index, 0);
}

TEST(MathGradTest, CastThroughFloat) {
  // Rounding to float makes tiny steps noisy: a larger step, and a bound
  // near float precision.
  Unary f = [](const Scope& s, Output x) {
    return ops::Cast(s, ops::Cast(s, x, DT_FLOAT), DT_DOUBLE);
  };
  EXPECT_LT(UnaryError(f, kX, /*delta=*/1e-2), 1e-4);
}

TEST(MathGradTest, MatMulAllTransposes) {
  const Tensor a = Values(TensorShape({2, 3}), {0.1, 0.2, -0.3, 0.4, 0.5, 0.6});
  const Tensor b = Values(TensorShape({3, 2}), {1.0, -2.0, 0.5, 0.3, -0.7, 0.9});
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Tensor av = ta ? Values(TensorShape({3, 2}), {0.1, 0.4, 0.2, 0.5, -0.3, 0.6}) : a;
      Tensor bv = tb ? Values(TensorShape({2, 3}), {1.0, 0.5, -0.7, -2.0, 0.3, 0.9}) : b;
      auto f = [ta, tb](const Scope& s, Output x, Output y) {
        return ops::MatMul(s, x, y, ops::MatMul::TransposeA(ta).TransposeB(tb));
      };
      auto [ex, ey] = BinaryErrors(f, av, bv);
      EXPECT_LT(ex, kTolerance) << "ta=" << ta << " tb=" << tb;
      EXPECT_LT(ey, kTolerance) << "ta=" << ta << " tb=" << tb;
    }
  }
}

TEST(MathGradTest, BiasAdd) {
  const Tensor bias = Values(TensorShape({3}), {0.1, -0.2, 0.3});
  auto [ex, eb] = BinaryErrors(
      [](const Scope& s, Output x, Output b) { return ops::BiasAdd(s, x, b); }, kX,
      bias);
  EXPECT_LT(ex, kTolerance);
  EXPECT_LT(eb, kTolerance);
}

TEST(MathGradTest, Reductions) {
  const Tensor x = Values(TensorShape({2, 3, 2}),
                          {0.5, -1.2, 2.0, 0.3, 1.7, -0.8, 0.9, 1.1, -0.4, 2.2, 0.05, -1.9});
  for (bool keep : {false, true}) {
    for (std::vector<int> axes : {std::vector<int>{0}, {1}, {-1}, {0, 2}, {0, 1, 2}}) {
      for (const char* name : {"Sum", "Mean", "Max", "Min"}) {
        Unary f = [&](const Scope& s, Output in) -> Output {
          Tensor a = Tensor::Vector<int32_t>(std::vector<int32_t>(axes.begin(), axes.end()));
          const std::string n = name;
          if (n == "Sum") return ops::Sum(s, in, a, ops::Sum::KeepDims(keep));
          if (n == "Mean") return ops::Mean(s, in, a, ops::Mean::KeepDims(keep));
          if (n == "Max") return ops::Max(s, in, a, ops::Max::KeepDims(keep));
          return ops::Min(s, in, a, ops::Min::KeepDims(keep));
        };
        EXPECT_LT(UnaryError(f, x), kTolerance)
            << name << " keep_dims=" << keep << " axes[0]=" << axes[0];
      }
    }
  }
}

TEST(MathGradTest, Select) {
  Unary f = [](const Scope& s, Output x) {
    auto cond = ops::Const(s, Tensor::FromVector<bool>(
                                  {true, false, true, false, false, true},
                                  TensorShape({2, 3})));
    return ops::Select(s, cond, x, ops::Square(s, x));
  };
  EXPECT_LT(UnaryError(f, kX), kTolerance);
}

}  // namespace
}  // namespace tensorflow_ipu
