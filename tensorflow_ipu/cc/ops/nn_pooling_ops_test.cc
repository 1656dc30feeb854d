// MaxPool and MaxPoolGrad through ClientSession: hand-computed values with
// ties, overlapping windows and SAME padding (which never wins a maximum),
// several channels and images, half and double, empty tensors, and the
// errors of bad shapes and attrs.
#include <cstdint>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/array_ops.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/cc/ops/nn_ops.h"
#include "tensorflow_ipu/cc/ops/ops_test_util.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace {

using test::ExpectInvalid;
using test::ExpectTensor;
using test::FetchStatus;
using test::RunOk;

template <typename T>
Tensor Image(std::vector<T> v, int64_t h, int64_t w) {
  return Tensor::FromVector<T>(v, TensorShape({1, h, w, 1}));
}

// A 4x4 image whose 2x2 windows have ties.
const std::vector<float> kTies = {1, 3, 3, 0,   //
                                  3, 2, 1, 1,   //
                                  0, 0, 5, 5,   //
                                  0, 4, 5, 5};

TEST(MaxPoolTest, TiesGoToTheFirstMaximum) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Image(kTies, 4, 4));
  auto y = ops::MaxPool(root, x, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto g = ops::Const(root, Image<float>({10, 20, 30, 40}, 2, 2));
  auto dx = ops::MaxPoolGrad(root, x, y, g, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(y.output.shape(), TensorShape({1, 2, 2, 1}));
  EXPECT_EQ(dx.output.shape(), TensorShape({1, 4, 4, 1}));
  auto out = RunOk(root, {y, dx});
  ExpectTensor<float>(out[0], {1, 2, 2, 1}, {3, 3, 4, 5});
  // Window (0,0) holds 3 at (0,1) and (1,0): row-major order picks (0,1).
  ExpectTensor<float>(out[1], {1, 4, 4, 1},
                      {0, 10, 20, 0,  //
                       0, 0, 0, 0,    //
                       0, 0, 40, 0,   //
                       0, 30, 0, 0});
}

TEST(MaxPoolTest, OverlappingWindowsAddUp) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Image<float>({1, 1, 1, 1, 9, 1, 1, 1, 2}, 3, 3));
  auto y = ops::MaxPool(root, x, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  auto g = ops::Const(root, Image<float>({1, 2, 3, 4}, 2, 2));
  auto dx = ops::MaxPoolGrad(root, x, y, g, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  auto out = RunOk(root, {y, dx});
  ExpectTensor<float>(out[0], {1, 2, 2, 1}, {9, 9, 9, 9});
  ExpectTensor<float>(out[1], {1, 3, 3, 1}, {0, 0, 0, 0, 10, 0, 0, 0, 0});
}

// Padding is not a value: with negative inputs a zero pad would win.
TEST(MaxPoolTest, SamePaddingNeverWins) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Image<float>({-1, -2, -3, -4, -5, -6, -7, -8, -9}, 3, 3));
  auto y = ops::MaxPool(root, x, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  auto y1 = ops::MaxPool(root, x, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME");
  auto g = ops::Const(root, Image<float>({1, 2, 3, 4}, 2, 2));
  auto dx = ops::MaxPoolGrad(root, x, y, g, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  auto out = RunOk(root, {y, y1, dx});
  ExpectTensor<float>(out[0], {1, 2, 2, 1}, {-1, -3, -7, -9});
  ExpectTensor<float>(out[1], {1, 3, 3, 1}, {-1, -1, -2, -1, -1, -2, -4, -4, -5});
  ExpectTensor<float>(out[2], {1, 3, 3, 1}, {1, 0, 2, 0, 0, 0, 3, 0, 4});
}

TEST(MaxPoolTest, ChannelsAndImagesAreIndependent) {
  // Two images of 2x2 with two channels; channel 1 is channel 0 reversed.
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<float>({1, 4, 2, 3, 3, 2, 4, 1,  //
                                                       8, 5, 7, 6, 6, 7, 5, 8},
                                                      TensorShape({2, 2, 2, 2})));
  auto y = ops::MaxPool(root, x, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  auto g = ops::Const(root, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 1, 1, 2})));
  auto dx = ops::MaxPoolGrad(root, x, y, g, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  auto out = RunOk(root, {y, dx});
  ExpectTensor<float>(out[0], {2, 1, 1, 2}, {4, 4, 8, 8});
  ExpectTensor<float>(out[1], {2, 2, 2, 2}, {0, 2, 0, 0, 0, 0, 1, 0,  //
                                             3, 0, 0, 0, 0, 0, 0, 4});
}

TEST(MaxPoolTest, HalfAndDouble) {
  Scope root = Scope::NewRootScope();
  std::vector<half> th;
  std::vector<double> td;
  for (float v : kTies) {
    th.push_back(half(v));
    td.push_back(v);
  }
  auto xh = ops::Const(root, Image(th, 4, 4));
  auto yh = ops::MaxPool(root, xh, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto gh = ops::Const(root, Image<half>({half(1), half(2), half(3), half(4)}, 2, 2));
  auto dxh = ops::MaxPoolGrad(root, xh, yh, gh, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto xd = ops::Const(root, Image(td, 4, 4));
  auto yd = ops::MaxPool(root, xd, {1, 3, 3, 1}, {1, 1, 1, 1}, "VALID");
  auto out = RunOk(root, {yh, dxh, yd});
  ExpectTensor<half>(out[0], {1, 2, 2, 1}, {half(3), half(3), half(4), half(5)});
  std::vector<half> want(16, half(0));
  want[1] = half(1);
  want[2] = half(2);
  want[13] = half(3);
  want[10] = half(4);
  ExpectTensor<half>(out[1], {1, 4, 4, 1}, want);
  ExpectTensor<double>(out[2], {1, 2, 2, 1}, {5, 5, 5, 5});
}

TEST(MaxPoolTest, EmptyTensors) {
  Scope root = Scope::NewRootScope();
  Tensor none(DT_FLOAT, TensorShape({0, 4, 4, 3}));
  auto y = ops::MaxPool(root, none, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto dx = ops::MaxPoolGrad(root, none, Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3})),
                             Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3})), {1, 2, 2, 1},
                             {1, 2, 2, 1}, "VALID");
  auto no_channels = ops::MaxPool(root, Tensor(DT_FLOAT, TensorShape({1, 4, 4, 0})),
                                  {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  auto out = RunOk(root, {y, dx, no_channels});
  ExpectTensor<float>(out[0], {0, 2, 2, 3}, {});
  ExpectTensor<float>(out[1], {0, 4, 4, 3}, {});
  ExpectTensor<float>(out[2], {1, 2, 2, 0}, {});
}

// A SAME window far larger than the input covers all of it: the loops
// visit the input, not the window.
TEST(MaxPoolTest, HugeSameWindowIsTheGlobalMaximum) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Image<float>({1, 7, 3, 4, 5, 6, 2, 8, 0}, 3, 3));
  const int64_t huge = int64_t{1} << 30;
  auto y = ops::MaxPool(root, x, {1, huge, huge, 1}, {1, 1, 1, 1}, "SAME");
  auto dx = ops::MaxPoolGrad(root, x, y, ops::Const(root, Image<float>(std::vector<float>(9, 1.f), 3, 3)),
                             {1, huge, huge, 1}, {1, 1, 1, 1}, "SAME");
  auto out = RunOk(root, {y, dx});
  ExpectTensor<float>(out[0], {1, 3, 3, 1}, std::vector<float>(9, 8.f));
  ExpectTensor<float>(out[1], {1, 3, 3, 1}, {0, 0, 0, 0, 0, 0, 0, 9, 0});
}

TEST(MaxPoolErrorsTest, BadShapesAndAttrs) {
  struct Case {
    TensorShape input;
    std::vector<int64_t> ksize, strides;
    std::string padding;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {{4, 4, 1}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID",
       {"MaxPool: input must be 4-dimensional", "[4,4,1]", "op: 'MaxPool'"}},
      {{1, 4, 4, 1}, {1, 2, 2}, {1, 2, 2, 1}, "VALID",
       {"MaxPool requires the ksize attribute to contain 4 values, but got: 3"}},
      {{1, 4, 4, 1}, {1, 2, 2, 1}, {1, 2, 2}, "VALID",
       {"MaxPool requires the stride attribute to contain 4 values, but got: 3"}},
      {{1, 4, 4, 1}, {1, 0, 2, 1}, {1, 2, 2, 1}, "VALID", {"ksize for dimension 1 must be > 0"}},
      {{1, 4, 4, 1}, {1, 2, 2, 1}, {1, 0, 2, 1}, "VALID", {"stride must be > 0, but got 0"}},
      {{1, 4, 4, 1}, {2, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {"batch dimension"}},
      {{1, 2, 2, 1}, {1, 5, 5, 1}, {1, 1, 1, 1}, "VALID",
       {"Computed output size would be negative", "[1,2,2,1]", "ksize [1,5,5,1]"}},
      {{1, 4, 4, 1}, {1, 2, 2, 1}, {1, 2, 2, 1}, "same",
       {"attr 'padding' of \"same\" is not in the list of allowed values"}},
  };
  for (const Case& c : cases) {
    Scope root = Scope::NewRootScope();
    ops::MaxPool(root, Tensor(DT_FLOAT, c.input), c.ksize, c.strides, c.padding);
    ExpectInvalid(root.status(), c.parts);
  }
  Scope depth = Scope::NewRootScope();
  ops::MaxPool(depth, Tensor(DT_FLOAT, TensorShape({1, 4, 4, 4})), {1, 1, 1, 2}, {1, 1, 1, 1},
               "VALID");
  EXPECT_EQ(depth.status().code(), absl::StatusCode::kUnimplemented) << depth.status();
  Scope grad = Scope::NewRootScope();
  ops::MaxPoolGrad(grad, Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})),
                   Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})),
                   Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})), {1, 2, 2, 1}, {1, 2, 2, 1},
                   "VALID");
  ExpectInvalid(grad.status(),
                {"MaxPoolGrad: grad has shape [1,3,3,1]", "orig_input [1,4,4,1]", "[1,2,2,1]"});
}

TEST(MaxPoolErrorsTest, AtRunTimeAndNchw) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto g = ops::Placeholder(root.WithOpName("g"), DT_FLOAT);
  auto y = ops::MaxPool(root.WithOpName("pool"), x, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto dx = ops::MaxPoolGrad(root.WithOpName("dx"), x, y, g, {1, 2, 2, 1}, {1, 2, 2, 1},
                             "VALID");
  auto nchw = ops::MaxPool(root, Tensor(DT_FLOAT, TensorShape({1, 1, 4, 4})), {1, 1, 2, 2},
                           {1, 1, 2, 2}, "VALID", ops::MaxPool::DataFormat("NCHW"));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(nchw.output.shape(), TensorShape({1, 1, 2, 2}));
  ExpectInvalid(FetchStatus(root, y, {{x, Tensor(DT_FLOAT, TensorShape({4, 4}))}}),
                {"input must be 4-dimensional", "[4,4]", "node 'pool'"});
  ExpectInvalid(FetchStatus(root, dx,
                            {{x, Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1}))},
                             {g, Tensor(DT_FLOAT, TensorShape({1, 3, 2, 1}))}}),
                {"grad has shape [1,3,2,1]", "[1,2,2,1]", "node 'dx'"});
  absl::Status s = FetchStatus(root, nchw);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("data_format \"NCHW\""), absl::string_view::npos) << s;
}

}  // namespace
}  // namespace tensorflow_ipu
