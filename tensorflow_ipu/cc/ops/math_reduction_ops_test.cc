// Reductions, ArgMax/ArgMin and BroadcastGradientArgs through ClientSession.
#include <cmath>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/cc/ops/math_ops.h"
#include "tensorflow_ipu/cc/ops/ops_test_util.h"

namespace tensorflow_ipu {
namespace {

using test::Eval;
using test::FetchStatus;
using test::Values;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// [[1, 2, 3], [4, 5, 6]]
Tensor Matrix23() {
  return Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
}

TEST(MathReductionOpsTest, SumOverAxes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Matrix23());
  auto s0 = ops::Sum(root, x, {0});
  auto s1 = ops::Sum(root, x, 1);
  auto all = ops::Sum(root, x, {0, 1});
  auto neg = ops::Sum(root, x, {-1}, ops::Sum::KeepDims(true));
  auto keep_all = ops::Sum(root, x, {1, 0, -1}, ops::Sum::KeepDims(true));
  auto none = ops::Sum(root, x, Tensor(DT_INT32, TensorShape({0})));
  auto i64_axes = ops::Sum(root, x, {int64_t{0}});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Output(s0).shape(), TensorShape({3}));
  EXPECT_THAT(Values<float>(Eval(root, s0)), ElementsAre(5, 7, 9));
  EXPECT_THAT(Values<float>(Eval(root, s1)), ElementsAre(6, 15));
  Tensor a = Eval(root, all);
  EXPECT_EQ(a.shape(), TensorShape());
  EXPECT_EQ(a.data<float>()[0], 21.f);
  EXPECT_EQ(Output(neg).shape(), TensorShape({2, 1}));
  Tensor n = Eval(root, neg);
  EXPECT_EQ(n.shape(), TensorShape({2, 1}));
  EXPECT_THAT(Values<float>(n), ElementsAre(6, 15));
  EXPECT_EQ(Eval(root, keep_all).shape(), TensorShape({1, 1}));
  EXPECT_EQ(Output(none).shape(), TensorShape({2, 3}));
  Tensor id = Eval(root, none);
  EXPECT_EQ(id.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(id), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(Values<float>(Eval(root, i64_axes)), ElementsAre(5, 7, 9));
}

TEST(MathReductionOpsTest, MeanMaxMinProd) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Matrix23());
  auto mean = ops::Mean(root, x, {0});
  auto max = ops::Max(root, x, {1});
  auto min = ops::Min(root, x, {0, 1});
  auto prod = ops::Prod(root, x, {1});
  auto imean = ops::Mean(root, {{1, 2}, {-1, -2}}, {1});
  auto imax = ops::Max(root, {int64_t{-7}, int64_t{3}}, 0);
  auto dmean = ops::Mean(root, Tensor::Vector<double>({1.0, 2.0}), 0);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<float>(Eval(root, mean)), ElementsAre(2.5f, 3.5f, 4.5f));
  EXPECT_THAT(Values<float>(Eval(root, max)), ElementsAre(3, 6));
  EXPECT_EQ(Eval(root, min).data<float>()[0], 1.f);
  EXPECT_THAT(Values<float>(Eval(root, prod)), ElementsAre(6, 120));
  // Integer means truncate toward zero: 3/2 -> 1, -3/2 -> -1.
  EXPECT_THAT(Values<int32_t>(Eval(root, imean)), ElementsAre(1, -1));
  EXPECT_EQ(Eval(root, imax).data<int64_t>()[0], 3);
  EXPECT_EQ(Eval(root, dmean).data<double>()[0], 1.5);
}

TEST(MathReductionOpsTest, Rank3AndSeparatedAxes) {
  Scope root = Scope::NewRootScope();
  std::vector<float> v(2 * 3 * 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  auto x = ops::Const(root, Tensor::FromVector(v, TensorShape({2, 3, 4})));
  auto outer_inner = ops::Sum(root, x, {0, 2});  // kept dim in the middle
  auto middle = ops::Max(root, x, {1}, ops::Max::KeepDims(true));
  auto first = ops::Mean(root, x, {0});
  ASSERT_TRUE(root.ok()) << root.status();
  std::vector<float> expect_oi(3, 0.f);
  std::vector<float> expect_mid(2 * 4, -1.f);
  std::vector<float> expect_first(3 * 4, 0.f);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) {
        const float val = v[i * 12 + j * 4 + k];
        expect_oi[j] += val;
        expect_mid[i * 4 + k] = std::max(expect_mid[i * 4 + k], val);
        expect_first[j * 4 + k] += val / 2;
      }
    }
  }
  EXPECT_EQ(Values<float>(Eval(root, outer_inner)), expect_oi);
  Tensor m = Eval(root, middle);
  EXPECT_EQ(m.shape(), TensorShape({2, 1, 4}));
  EXPECT_EQ(Values<float>(m), expect_mid);
  EXPECT_EQ(Values<float>(Eval(root, first)), expect_first);
}

TEST(MathReductionOpsTest, LargeReductionsUseThePool) {
  Scope root = Scope::NewRootScope();
  const int64_t rows = 512, cols = 256;
  std::vector<int32_t> v(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) v[i] = static_cast<int32_t>(i % 7);
  auto x = ops::Const(root, Tensor::FromVector(v, TensorShape({rows, cols})));
  auto all = ops::Sum(root, x, {0, 1});
  auto cols_sum = ops::Sum(root, x, {0});
  ASSERT_TRUE(root.ok()) << root.status();
  int64_t total = 0;
  std::vector<int32_t> expect_cols(cols, 0);
  for (int64_t i = 0; i < rows * cols; ++i) {
    total += v[i];
    expect_cols[i % cols] += v[i];
  }
  EXPECT_EQ(Eval(root, all).data<int32_t>()[0], total);
  EXPECT_EQ(Values<int32_t>(Eval(root, cols_sum)), expect_cols);
}

TEST(MathReductionOpsTest, HalfAccumulatesInFloat) {
  Scope root = Scope::NewRootScope();
  // 4096 ones: a half accumulator would stop at 2048.
  std::vector<half> ones(4096, half(1.f));
  auto x = ops::Const(root, Tensor::Vector<half>(ones));
  auto sum = ops::Sum(root, x, 0);
  auto mean = ops::Mean(root, x, 0);
  auto max = ops::Max(root, Tensor::Vector<half>({half(1.f), half(3.f)}), 0);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(static_cast<float>(Eval(root, sum).data<half>()[0]), 4096.f);
  EXPECT_EQ(static_cast<float>(Eval(root, mean).data<half>()[0]), 1.f);
  EXPECT_EQ(static_cast<float>(Eval(root, max).data<half>()[0]), 3.f);
}

TEST(MathReductionOpsTest, EmptyInputs) {
  Scope root = Scope::NewRootScope();
  Tensor empty(DT_FLOAT, TensorShape({0, 3}));
  auto sum = ops::Sum(root, empty, {0});
  auto prod = ops::Prod(root, empty, {0});
  auto max = ops::Max(root, empty, {0});
  auto min = ops::Min(root, empty, {0});
  auto mean = ops::Mean(root, empty, {0});
  auto keep = ops::Sum(root, empty, {1});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<float>(Eval(root, sum)), ElementsAre(0, 0, 0));
  EXPECT_THAT(Values<float>(Eval(root, prod)), ElementsAre(1, 1, 1));
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THAT(Values<float>(Eval(root, max)), ElementsAre(-inf, -inf, -inf));
  EXPECT_THAT(Values<float>(Eval(root, min)), ElementsAre(inf, inf, inf));
  EXPECT_TRUE(std::isnan(Eval(root, mean).data<float>()[0]));
  EXPECT_EQ(Eval(root, keep).shape(), TensorShape({0}));
}

TEST(MathReductionOpsTest, ShapeInference) {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 3, 4}));
  auto axes = ops::Placeholder(root, DT_INT32);
  auto s = ops::Sum(root, p, {1});
  auto k = ops::Mean(root, p, {0, -1}, ops::Mean::KeepDims(true));
  auto dyn_keep = ops::Max(root, p, axes, ops::Max::KeepDims(true));
  auto dyn = ops::Max(root, p, axes);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Output(s).shape(), TensorShape({-1, 4}));
  EXPECT_EQ(Output(k).shape(), TensorShape({1, 3, 1}));
  EXPECT_EQ(Output(dyn_keep).shape(), TensorShape({-1, -1, -1}));
  EXPECT_TRUE(Output(dyn).shape().unknown_rank());
  // Axes fed at run time.
  Tensor r = Eval(root, dyn, {{p, Tensor::FromVector<float>(
                                      std::vector<float>(24, 2.f),
                                      TensorShape({2, 3, 4}))},
                              {axes, {0, 2}}});
  EXPECT_EQ(r.shape(), TensorShape({3}));
  EXPECT_THAT(Values<float>(r), ElementsAre(2, 2, 2));
}

TEST(MathReductionOpsTest, InvalidAxes) {
  Scope root = Scope::NewRootScope();
  // Inputs are built first: constants made from initializers inside the
  // named op's call would take its WithOpName name.
  auto x = ops::Const(root, Matrix23());
  auto axis = ops::Const(root, {2});
  ops::Sum(root.WithOpName("bad_sum"), x, axis);
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("Invalid reduction dimension 2 for input with 2 dimensions"));
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("'bad_sum'"));
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("[2,3], [1]"));

  Scope r2 = Scope::NewRootScope();
  auto axes = ops::Placeholder(r2, DT_INT32);
  auto sum = ops::Sum(r2.WithOpName("dyn_sum"), Matrix23(), axes);
  absl::Status s = FetchStatus(r2, sum, {{axes, {-3}}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Invalid reduction dimension -3"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("dyn_sum"));
  s = FetchStatus(r2, sum, {{axes, Tensor::FromVector<int32_t>({0, 1}, TensorShape({2, 1}))}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST(MathReductionOpsTest, ArgMaxArgMin) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {{1.f, 5.f, 3.f}, {7.f, 2.f, 7.f}});
  auto am1 = ops::ArgMax(root, x, 1);
  auto am0 = ops::ArgMax(root, x, 0, ops::ArgMax::OutputType(DT_INT32));
  auto amneg = ops::ArgMin(root, x, -1);
  auto am_int = ops::ArgMax(root, {3, 9, 9, 1}, int64_t{0});
  auto am_half = ops::ArgMin(root, Tensor::Vector<half>({half(2.f), half(-1.f)}), 0);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Output(am1).type(), DT_INT64);
  EXPECT_EQ(Output(am1).shape(), TensorShape({2}));
  EXPECT_THAT(Values<int64_t>(Eval(root, am1)), ElementsAre(1, 0));  // ties: first
  Tensor a0 = Eval(root, am0);
  EXPECT_EQ(a0.dtype(), DT_INT32);
  EXPECT_THAT(Values<int32_t>(a0), ElementsAre(1, 0, 1));
  EXPECT_THAT(Values<int64_t>(Eval(root, amneg)), ElementsAre(0, 1));
  Tensor ai = Eval(root, am_int);
  EXPECT_EQ(ai.shape(), TensorShape());
  EXPECT_EQ(ai.data<int64_t>()[0], 1);
  EXPECT_EQ(Eval(root, am_half).data<int64_t>()[0], 1);
}

TEST(MathReductionOpsTest, ArgMaxErrors) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Matrix23());
  auto dim = ops::Const(root, 2);
  ops::ArgMax(root.WithOpName("am"), x, dim);
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("Expected dimension in the range [-2, 2), but got 2"));
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("'am'"));

  Scope r2 = Scope::NewRootScope();
  auto p = ops::Placeholder(r2, DT_FLOAT, ops::Placeholder::Shape({-1, 3}));
  auto am = ops::ArgMax(r2, p, 0);
  EXPECT_EQ(Output(am).shape(), TensorShape({3}));
  absl::Status s = FetchStatus(r2, am, {{p, Tensor(DT_FLOAT, TensorShape({0, 3}))}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Reduction axis 0 is empty in shape [0,3]"));
}

std::pair<std::vector<int32_t>, std::vector<int32_t>> GradientArgs(
    std::vector<int32_t> s0, std::vector<int32_t> s1) {
  Scope root = Scope::NewRootScope();
  ops::BroadcastGradientArgs args(root, Tensor::Vector<int32_t>(s0),
                                  Tensor::Vector<int32_t>(s1));
  EXPECT_TRUE(root.ok()) << root.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({args.r0, args.r1}, &out);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return {};
  return {Values<int32_t>(out[0]), Values<int32_t>(out[1])};
}

TEST(MathReductionOpsTest, BroadcastGradientArgs) {
  auto r = GradientArgs({2, 3, 5}, {1});
  EXPECT_THAT(r.first, IsEmpty());
  EXPECT_THAT(r.second, ElementsAre(0, 1, 2));
  r = GradientArgs({5}, {2, 3, 5});
  EXPECT_THAT(r.first, ElementsAre(0, 1));
  EXPECT_THAT(r.second, IsEmpty());
  r = GradientArgs({2, 1, 5}, {3, 1});
  EXPECT_THAT(r.first, ElementsAre(1));
  EXPECT_THAT(r.second, ElementsAre(0, 2));
  r = GradientArgs({2, 3}, {2, 3});
  EXPECT_THAT(r.first, IsEmpty());
  EXPECT_THAT(r.second, IsEmpty());
  // Dimensions that are 1 in both are summed in both (no-op sums).
  r = GradientArgs({1, 4}, {1, 1});
  EXPECT_THAT(r.first, ElementsAre(0));
  EXPECT_THAT(r.second, ElementsAre(0, 1));
  // Zero-size dimensions broadcast against 1.
  r = GradientArgs({2, 0, 3, 0, 5}, {3, 1, 5});
  EXPECT_THAT(r.first, IsEmpty());
  EXPECT_THAT(r.second, ElementsAre(0, 1, 3));
  r = GradientArgs({}, {3});
  EXPECT_THAT(r.first, ElementsAre(0));
  EXPECT_THAT(r.second, IsEmpty());
}

TEST(MathReductionOpsTest, BroadcastGradientArgsShapesAndErrors) {
  Scope root = Scope::NewRootScope();
  auto s0 = ops::Placeholder(root, DT_INT64);
  auto s1 = ops::Placeholder(root, DT_INT64);
  ops::BroadcastGradientArgs args(root.WithOpName("bga"), s0, s1);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(args.r0.shape(), TensorShape({-1}));
  EXPECT_EQ(args.r1.type(), DT_INT64);
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({{s0, {int64_t{2}, int64_t{3}}}, {s1, {int64_t{4}}}},
                               {args.r0}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Incompatible shapes: [2,3] vs. [4]"));
  ASSERT_TRUE(session.Run({{s0, {int64_t{2}, int64_t{3}}}, {s1, {int64_t{3}}}},
                          {args.r0, args.r1}, &out).ok());
  EXPECT_THAT(Values<int64_t>(out[0]), IsEmpty());
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(0));

  Scope r2 = Scope::NewRootScope();
  ops::BroadcastGradientArgs bad(r2, 3, {1});
  EXPECT_EQ(r2.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r2.status().message()), HasSubstr("Shape must be rank 1 but is rank 0"));
  EXPECT_FALSE(bad.r0.valid());
}

}  // namespace
}  // namespace tensorflow_ipu
