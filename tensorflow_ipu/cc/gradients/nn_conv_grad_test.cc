// Gradients of Conv2D and MaxPool against central finite differences, and
// the static shapes of the gradient graph.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/gradients/gradient_checker.h"
#include "tensorflow_ipu/cc/gradients/gradients.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace {

constexpr double kTolerance = 1e-6;

// Distinct values (no ties, so MaxPool is differentiable at them) spread
// over [-1, 1].
Tensor Values(const TensorShape& shape, int seed) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = std::sin(1.0 + 0.37 * static_cast<double>(i) + 1.3 * seed) *
           (1.0 + 0.001 * static_cast<double>(i));
  }
  return Tensor::FromVector<double>(v, shape);
}

using Unary = std::function<Output(const Scope&, Output)>;

double Error(const Unary& f, const Tensor& x_value) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE, ops::Placeholder::Shape(x_value.shape()));
  Output y = f(root, x);
  absl::StatusOr<double> err = ComputeGradientError(root, x, x_value, y);
  EXPECT_TRUE(err.ok()) << err.status();
  return err.value_or(1e9);
}

struct ConvCase {
  TensorShape input, filter;
  std::vector<int64_t> strides;
  const char* padding;
};

const std::vector<ConvCase> kConvCases = {
    {{1, 3, 3, 1}, {2, 2, 1, 1}, {1, 1, 1, 1}, "VALID"},
    {{1, 3, 3, 1}, {2, 2, 1, 1}, {1, 2, 2, 1}, "SAME"},
    {{2, 5, 4, 2}, {3, 2, 2, 3}, {1, 2, 1, 1}, "SAME"},
    {{2, 5, 4, 2}, {3, 3, 2, 2}, {1, 1, 2, 1}, "VALID"},
    {{2, 3, 3, 3}, {1, 1, 3, 2}, {1, 1, 1, 1}, "SAME"},  // pointwise
};

TEST(NnConvGradTest, Conv2DWrtInputAndFilter) {
  for (const ConvCase& c : kConvCases) {
    SCOPED_TRACE(::testing::Message() << "input " << c.input.DebugString() << " filter "
                                      << c.filter.DebugString() << " " << c.padding);
    const Tensor filter = Values(c.filter, 1), input = Values(c.input, 2);
    Unary wrt_input = [&](const Scope& s, Output x) {
      return ops::Conv2D(s, x, filter, c.strides, c.padding);
    };
    EXPECT_LT(Error(wrt_input, input), kTolerance);
    Unary wrt_filter = [&](const Scope& s, Output f) {
      return ops::Conv2D(s, input, f, c.strides, c.padding);
    };
    EXPECT_LT(Error(wrt_filter, filter), kTolerance);
  }
}

TEST(NnConvGradTest, MaxPool) {
  struct PoolCase {
    TensorShape input;
    std::vector<int64_t> ksize, strides;
    const char* padding;
  };
  const std::vector<PoolCase> cases = {
      {{1, 4, 4, 1}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"},
      {{2, 3, 3, 2}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"},  // overlapping windows
      {{1, 5, 4, 3}, {1, 3, 2, 1}, {1, 2, 2, 1}, "SAME"},
  };
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "input " << c.input.DebugString() << " " << c.padding);
    Unary f = [&](const Scope& s, Output x) {
      return ops::MaxPool(s, x, c.ksize, c.strides, c.padding);
    };
    EXPECT_LT(Error(f, Values(c.input, 3)), kTolerance);
  }
}

// The tutorial's layers in a row: Conv2D -> Relu -> MaxPool -> a loss,
// differentiated with respect to the filter.
TEST(NnConvGradTest, ConvReluPoolChain) {
  const Tensor images = Values(TensorShape({2, 6, 6, 1}), 4);
  Unary f = [&](const Scope& s, Output w) {
    auto conv = ops::Conv2D(s, images, w, {1, 1, 1, 1}, "VALID");
    auto pool = ops::MaxPool(s, ops::Relu(s, conv), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
    return ops::Sum(s, ops::Square(s, pool), {1, 2, 3});
  };
  EXPECT_LT(Error(f, Values(TensorShape({3, 3, 1, 2}), 5)), kTolerance);
}

// Static input shapes give the gradient ops static shapes (constant
// input_sizes / filter_sizes), which the IPU's static-shape check needs;
// unknown ones still run, through Shape ops.
TEST(NnConvGradTest, GradientShapesAreStaticWhenTheInputsAre) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({2, 5, 5, 1}));
  auto w = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({3, 3, 1, 4}));
  auto y = ops::MaxPool(root, ops::Conv2D(root, x, w, {1, 1, 1, 1}, "SAME"), {1, 2, 2, 1},
                        {1, 2, 2, 1}, "SAME");
  std::vector<Output> grads;
  TF_ASSERT_OK(AddSymbolicGradients(root, {y}, {x, w}, &grads));
  EXPECT_EQ(grads[0].shape(), TensorShape({2, 5, 5, 1}));
  EXPECT_EQ(grads[1].shape(), TensorShape({3, 3, 1, 4}));

  Scope dynamic = Scope::NewRootScope();
  auto xd = ops::Placeholder(dynamic, DT_FLOAT, ops::Placeholder::Shape({-1, 4, 4, 1}));
  auto wd = ops::Const(dynamic, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2, 1, 1})));
  auto yd = ops::Conv2D(dynamic, xd, wd, {1, 1, 1, 1}, "VALID");
  std::vector<Output> dgrads;
  TF_ASSERT_OK(AddSymbolicGradients(dynamic, {yd}, {xd}, &dgrads));
  ClientSession session(dynamic);
  std::vector<Tensor> out;
  TF_ASSERT_OK(session.Run({{xd, Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1}))}}, {dgrads[0]},
                           &out));
  ASSERT_EQ(out[0].shape(), TensorShape({1, 4, 4, 1}));
  // Every input position gets the taps of the windows covering it.
  const std::vector<float> want = {1, 3, 3, 2, 4, 10, 10, 6, 4, 10, 10, 6, 3, 7, 7, 4};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[0].data<float>()[i], want[i]) << i;
}

}  // namespace
}  // namespace tensorflow_ipu
