// Elementwise math ops through ClientSession: broadcasting binary ops,
// comparisons, logic, unary functions, gradient helpers and Select.
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
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// Broadcasting reference: out[i] = f(x[ix], y[iy]) by explicit index maths.
template <typename T, typename F>
std::vector<T> ReferenceBroadcast(const std::vector<T>& x, const TensorShape& xs,
                                  const std::vector<T>& y, const TensorShape& ys,
                                  const TensorShape& os, F f) {
  const int rank = os.dims();
  std::vector<T> out(os.num_elements());
  for (int64_t i = 0; i < os.num_elements(); ++i) {
    std::vector<int64_t> idx(rank);
    int64_t rem = i;
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = rem % os.dim_size(d);
      rem /= os.dim_size(d);
    }
    auto offset = [&](const TensorShape& s) {
      int64_t off = 0;
      for (int d = 0; d < s.dims(); ++d) {
        const int64_t k = idx[rank - s.dims() + d];
        off = off * s.dim_size(d) + (s.dim_size(d) == 1 ? 0 : k);
      }
      return off;
    };
    out[i] = f(x[offset(xs)], y[offset(ys)]);
  }
  return out;
}

// An [n, 1] column (nested braces {{1.f}, {2.f}} would make a vector).
Tensor Column(const std::vector<float>& v) {
  return Tensor::FromVector(v, TensorShape({static_cast<int64_t>(v.size()), 1}));
}

std::vector<float> Iota(int64_t n, float start = 1.f) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

TEST(MathCwiseOpsTest, AddSameShapeAndNames) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT,
                            ops::Placeholder::Shape({2}));
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT,
                            ops::Placeholder::Shape({2}));
  auto sum = ops::Add(root, a, b);
  auto sum2 = ops::AddV2(root.WithOpName("total"), a, b);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(sum.node()->name(), "Add");
  EXPECT_EQ(sum2.node()->name(), "total");
  EXPECT_EQ(Output(sum).shape(), TensorShape({2}));
  ClientSession session(root);
  std::vector<Tensor> out;
  {
    absl::Status status = session.Run({{a, {1.f, 2.f}}, {b, {3.f, 4.5f}}}, {sum, sum2}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(4.f, 6.5f));
  EXPECT_THAT(Values<float>(out[1]), ElementsAre(4.f, 6.5f));
}

TEST(MathCwiseOpsTest, ScalarOperands) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  auto y = ops::Sub(root, x, 10.f);
  auto z = ops::Sub(root, 10.f, x);
  // A one-element operand of higher rank still broadcasts elementwise.
  auto w = ops::Mul(root, ops::Const(root, {2.f, 3.f}),
                    Tensor::FromVector<float>({4.f}, TensorShape({1, 1, 1})));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<float>(Eval(root, y)), ElementsAre(-9, -8, -7, -6, -5, -4));
  EXPECT_THAT(Values<float>(Eval(root, z)), ElementsAre(9, 8, 7, 6, 5, 4));
  Tensor wt = Eval(root, w);
  EXPECT_EQ(wt.shape(), TensorShape({1, 1, 2}));
  EXPECT_THAT(Values<float>(wt), ElementsAre(8.f, 12.f));
}

TEST(MathCwiseOpsTest, RowColumnAndOuterBroadcasts) {
  Scope root = Scope::NewRootScope();
  auto m = ops::Const(root, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  auto row = ops::Sub(root, m, {1.f, 2.f, 3.f});
  auto col = ops::Mul(root, m, Column({2.f, 3.f}));
  auto outer = ops::Add(root, Column({10.f, 20.f}),
                        ops::Const(root, {{1.f, 2.f, 3.f}}));
  auto rev = ops::RealDiv(root, {2.f, 4.f, 8.f}, m);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<float>(Eval(root, row)), ElementsAre(0, 0, 0, 3, 3, 3));
  EXPECT_THAT(Values<float>(Eval(root, col)), ElementsAre(2, 4, 6, 12, 15, 18));
  Tensor o = Eval(root, outer);
  EXPECT_EQ(o.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(o), ElementsAre(11, 12, 13, 21, 22, 23));
  EXPECT_THAT(Values<float>(Eval(root, rev)),
              ElementsAre(2.f, 2.f, 8.f / 3.f, 0.5f, 0.8f, 8.f / 6.f));
}

TEST(MathCwiseOpsTest, HighRankBroadcastMatchesReference) {
  struct Case {
    TensorShape xs, ys, os;
  };
  const std::vector<Case> cases = {
      {{2, 1, 3, 1}, {4, 1, 2}, {2, 4, 3, 2}},
      {{3, 1, 4}, {2, 1, 1, 4}, {2, 3, 1, 4}},
      {{2, 3, 4, 5, 6, 7}, {1, 3, 1, 5, 1, 7}, {2, 3, 4, 5, 6, 7}},
      {{1, 2, 1, 2, 1, 2, 1}, {2, 1, 2, 1, 2, 1, 2}, {2, 2, 2, 2, 2, 2, 2}},
      {{5, 1}, {1}, {5, 1}},
  };
  for (const Case& c : cases) {
    Scope root = Scope::NewRootScope();
    std::vector<float> xv = Iota(c.xs.num_elements());
    std::vector<float> yv = Iota(c.ys.num_elements(), 100.f);
    auto sub = ops::Sub(root, Tensor::FromVector(xv, c.xs),
                        Tensor::FromVector(yv, c.ys));
    ASSERT_TRUE(root.ok()) << root.status();
    EXPECT_EQ(Output(sub).shape(), c.os);
    Tensor out = Eval(root, sub);
    EXPECT_EQ(out.shape(), c.os);
    EXPECT_EQ(Values<float>(out),
              ReferenceBroadcast(xv, c.xs, yv, c.ys, c.os,
                                 [](float a, float b) { return a - b; }))
        << c.xs.DebugString() << " - " << c.ys.DebugString();
  }
}

TEST(MathCwiseOpsTest, LargeTensorsUseThePoolAndStayExact) {
  Scope root = Scope::NewRootScope();
  const int64_t rows = 1000, cols = 100;
  std::vector<float> xv = Iota(rows * cols, 0.f);
  auto x = ops::Const(root, Tensor::FromVector(xv, TensorShape({rows, cols})));
  auto same = ops::Add(root, x, x);
  auto bias = ops::Add(root, x, Tensor::FromVector(Iota(cols, 0.f), TensorShape({cols})));
  auto colb = ops::Sub(root, x, Tensor::FromVector(Iota(rows, 0.f), TensorShape({rows, 1})));
  ASSERT_TRUE(root.ok()) << root.status();
  std::vector<float> s = Values<float>(Eval(root, same));
  std::vector<float> b = Values<float>(Eval(root, bias));
  std::vector<float> c = Values<float>(Eval(root, colb));
  for (int64_t i = 0; i < rows * cols; ++i) {
    ASSERT_EQ(s[i], 2.f * xv[i]) << i;
    ASSERT_EQ(b[i], xv[i] + static_cast<float>(i % cols)) << i;
    ASSERT_EQ(c[i], xv[i] - static_cast<float>(i / cols)) << i;
  }
}

TEST(MathCwiseOpsTest, ZeroSizeAndScalarShapes) {
  Scope root = Scope::NewRootScope();
  auto empty = ops::Add(root, Tensor(DT_FLOAT, TensorShape({0, 3})), {1.f, 2.f, 3.f});
  auto empty2 = ops::Mul(root, Tensor(DT_FLOAT, TensorShape({0, 1})),
                         Tensor(DT_FLOAT, TensorShape({1, 4})));
  auto scalar = ops::Maximum(root, 2.f, 3.f);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Output(empty).shape(), TensorShape({0, 3}));
  EXPECT_EQ(Eval(root, empty).shape(), TensorShape({0, 3}));
  EXPECT_EQ(Eval(root, empty2).shape(), TensorShape({0, 4}));
  Tensor s = Eval(root, scalar);
  EXPECT_EQ(s.shape(), TensorShape());
  EXPECT_EQ(s.data<float>()[0], 3.f);
}

TEST(MathCwiseOpsTest, IntegerAndHalfArithmetic) {
  Scope root = Scope::NewRootScope();
  auto i32 = ops::Sub(root, {7, -3, 5}, {2});
  auto i64max = ops::Maximum(root, {int64_t{1} << 40, int64_t{-5}}, {int64_t{3}, int64_t{-9}});
  auto i32min = ops::Minimum(root, {{1, 8}, {9, 2}}, {4, 4});
  auto h = ops::Mul(root, Tensor::Vector<half>({half(1.5f), half(-2.f)}),
                    Tensor::Scalar<half>(half(4.f)));
  auto d = ops::RealDiv(root, Tensor::Vector<double>({1.0, 3.0}),
                        Tensor::Vector<double>({4.0, 2.0}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<int32_t>(Eval(root, i32)), ElementsAre(5, -5, 3));
  EXPECT_THAT(Values<int64_t>(Eval(root, i64max)), ElementsAre(int64_t{1} << 40, -5));
  EXPECT_THAT(Values<int32_t>(Eval(root, i32min)), ElementsAre(1, 4, 4, 2));
  Tensor ht = Eval(root, h);
  ASSERT_EQ(ht.dtype(), DT_HALF);
  EXPECT_EQ(static_cast<float>(ht.data<half>()[0]), 6.f);
  EXPECT_EQ(static_cast<float>(ht.data<half>()[1]), -8.f);
  EXPECT_THAT(Values<double>(Eval(root, d)), ElementsAre(0.25, 1.5));
}

TEST(MathCwiseOpsTest, Comparisons) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {1.f, 2.f, 3.f});
  auto lt = ops::Less(root, x, 2.f);
  auto le = ops::LessEqual(root, x, 2.f);
  auto gt = ops::Greater(root, x, Column({2.f, 0.f}));
  auto ge = ops::GreaterEqual(root, {3, 1, 2}, {2, 1, 3});
  auto eq = ops::Equal(root, {int64_t{1}, int64_t{2}}, {int64_t{1}, int64_t{3}});
  auto ne = ops::NotEqual(root, {true, false}, {true, true});
  auto eq_incompat = ops::Equal(root, {1, 2}, {1, 2, 3},
                                ops::Equal::IncompatibleShapeError(false));
  auto ne_incompat = ops::NotEqual(root, {1, 2}, {1, 2, 3},
                                   ops::NotEqual::IncompatibleShapeError(false));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Output(lt).type(), DT_BOOL);
  EXPECT_THAT(Values<bool>(Eval(root, lt)), ElementsAre(true, false, false));
  EXPECT_THAT(Values<bool>(Eval(root, le)), ElementsAre(true, true, false));
  Tensor g = Eval(root, gt);
  EXPECT_EQ(g.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<bool>(g), ElementsAre(false, false, true, true, true, true));
  EXPECT_THAT(Values<bool>(Eval(root, ge)), ElementsAre(true, true, false));
  EXPECT_THAT(Values<bool>(Eval(root, eq)), ElementsAre(true, false));
  EXPECT_THAT(Values<bool>(Eval(root, ne)), ElementsAre(false, true));
  Tensor ei = Eval(root, eq_incompat);
  EXPECT_EQ(ei.shape(), TensorShape());
  EXPECT_FALSE(ei.data<bool>()[0]);
  EXPECT_TRUE(Eval(root, ne_incompat).data<bool>()[0]);
}

TEST(MathCwiseOpsTest, Logic) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {true, true, false, false});
  auto b = ops::Const(root, {true, false, true, false});
  auto land = ops::LogicalAnd(root, a, b);
  auto lor = ops::LogicalOr(root, a, b);
  auto lnot = ops::LogicalNot(root, a);
  auto bcast = ops::LogicalAnd(root, a, true);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<bool>(Eval(root, land)), ElementsAre(true, false, false, false));
  EXPECT_THAT(Values<bool>(Eval(root, lor)), ElementsAre(true, true, true, false));
  EXPECT_THAT(Values<bool>(Eval(root, lnot)), ElementsAre(false, false, true, true));
  EXPECT_THAT(Values<bool>(Eval(root, bcast)), ElementsAre(true, true, false, false));
}

TEST(MathCwiseOpsTest, UnaryFunctions) {
  Scope root = Scope::NewRootScope();
  auto neg = ops::Neg(root, {1, -2});
  auto sq = ops::Square(root, {int64_t{-3}, int64_t{4}});
  auto sqrt = ops::Sqrt(root, {4.f, 9.f, 0.f});
  auto rsqrt = ops::Rsqrt(root, {4.f, 0.25f});
  auto exp = ops::Exp(root, {0.f, 1.f});
  auto log = ops::Log(root, {1.f, 0.f});
  auto tanh = ops::Tanh(root, {0.f, 1.f});
  auto sig = ops::Sigmoid(root, {0.f, 2.f, -100.f});
  auto rec = ops::Reciprocal(root, {2.f, -0.25f});
  auto relu = ops::Relu(root, {-1.f, 0.f, 2.5f});
  auto relu_i = ops::Relu(root, {{-1, 3}, {4, -7}});
  auto sqrt_h = ops::Sqrt(root, Tensor::Vector<half>({half(16.f)}));
  auto exp_d = ops::Exp(root, Tensor::Vector<double>({0.0}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<int32_t>(Eval(root, neg)), ElementsAre(-1, 2));
  EXPECT_THAT(Values<int64_t>(Eval(root, sq)), ElementsAre(9, 16));
  EXPECT_THAT(Values<float>(Eval(root, sqrt)), ElementsAre(2.f, 3.f, 0.f));
  EXPECT_THAT(Values<float>(Eval(root, rsqrt)), ElementsAre(0.5f, 2.f));
  std::vector<float> e = Values<float>(Eval(root, exp));
  EXPECT_EQ(e[0], 1.f);
  EXPECT_NEAR(e[1], std::exp(1.f), 1e-6);
  std::vector<float> l = Values<float>(Eval(root, log));
  EXPECT_EQ(l[0], 0.f);
  EXPECT_TRUE(std::isinf(l[1]) && l[1] < 0);
  std::vector<float> t = Values<float>(Eval(root, tanh));
  EXPECT_EQ(t[0], 0.f);
  EXPECT_NEAR(t[1], std::tanh(1.f), 1e-6);
  std::vector<float> s = Values<float>(Eval(root, sig));
  EXPECT_EQ(s[0], 0.5f);
  EXPECT_NEAR(s[1], 1.f / (1.f + std::exp(-2.f)), 1e-6);
  EXPECT_NEAR(s[2], 0.f, 1e-30);
  EXPECT_THAT(Values<float>(Eval(root, rec)), ElementsAre(0.5f, -4.f));
  EXPECT_THAT(Values<float>(Eval(root, relu)), ElementsAre(0.f, 0.f, 2.5f));
  Tensor ri = Eval(root, relu_i);
  EXPECT_EQ(ri.shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<int32_t>(ri), ElementsAre(0, 3, 4, 0));
  EXPECT_EQ(static_cast<float>(Eval(root, sqrt_h).data<half>()[0]), 4.f);
  EXPECT_EQ(Eval(root, exp_d).data<double>()[0], 1.0);
}

TEST(MathCwiseOpsTest, GradientHelpers) {
  Scope root = Scope::NewRootScope();
  auto relu_g = ops::ReluGrad(root, {1.f, 2.f, 3.f}, {-1.f, 0.f, 5.f});
  auto sig_g = ops::SigmoidGrad(root, {0.5f, 0.25f}, {2.f, 4.f});
  auto tanh_g = ops::TanhGrad(root, {0.5f, -1.f}, {2.f, 3.f});
  auto rsqrt_g = ops::RsqrtGrad(root, {2.f}, {1.f});
  auto sqrt_g = ops::SqrtGrad(root, {2.f}, {1.f});
  auto rec_g = ops::ReciprocalGrad(root, {2.f}, {3.f});
  auto relu_gi = ops::ReluGrad(root, {5, 6}, {1, -1});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<float>(Eval(root, relu_g)), ElementsAre(0.f, 0.f, 3.f));
  EXPECT_THAT(Values<float>(Eval(root, sig_g)), ElementsAre(0.5f, 0.75f));
  EXPECT_THAT(Values<float>(Eval(root, tanh_g)), ElementsAre(1.5f, 0.f));
  EXPECT_THAT(Values<float>(Eval(root, rsqrt_g)), ElementsAre(-4.f));
  EXPECT_THAT(Values<float>(Eval(root, sqrt_g)), ElementsAre(0.25f));
  EXPECT_THAT(Values<float>(Eval(root, rec_g)), ElementsAre(-12.f));
  EXPECT_THAT(Values<int32_t>(Eval(root, relu_gi)), ElementsAre(5, 0));
}

// ReluGrad passes the gradient exactly where the feature is positive and
// gives +0 elsewhere (NaN, -0 and +0 features included; an infinite or NaN
// gradient passes as it is), at a layer's size and at one large enough to
// be split over the session's threads.
TEST(MathCwiseOpsTest, ReluGradPassesWhereTheFeatureIsPositiveAtAnySize) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> feature_cycle = {1.f, -1.f, 0.f, -0.f, nan, inf, -inf, 1e-40f, 3.f};
  const std::vector<float> gradient_cycle = {2.f, 5.f, -7.f, inf, 1.f, nan, 4.f, -inf, -0.f};
  for (int64_t n : {8192, 300001}) {
    Tensor g(DT_FLOAT, TensorShape({n})), f(DT_FLOAT, TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) {
      g.data<float>()[i] = gradient_cycle[i % gradient_cycle.size()] + static_cast<float>(i % 7);
      f.data<float>()[i] = feature_cycle[i % feature_cycle.size()];
    }
    Scope root = Scope::NewRootScope();
    auto grad = ops::ReluGrad(root, ops::Const(root, g), ops::Const(root, f));
    ASSERT_TRUE(root.ok()) << root.status();
    const std::vector<float> out = Values<float>(Eval(root, grad));
    ASSERT_EQ(static_cast<int64_t>(out.size()), n);
    for (int64_t i = 0; i < n; ++i) {
      const float fi = f.data<float>()[i], gi = g.data<float>()[i];
      const float want = fi > 0.f ? gi : 0.f;
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(out[i])) << "element " << i;
      } else {
        ASSERT_EQ(out[i], want) << "element " << i << " feature " << fi;
        ASSERT_EQ(std::signbit(out[i]), std::signbit(want)) << "element " << i;
      }
    }
  }
}

TEST(MathCwiseOpsTest, GradientHelpersRejectDifferentShapes) {
  Scope root = Scope::NewRootScope();
  // Inputs are built first: constants made from initializers inside the
  // named op's call would take its WithOpName name.
  auto y = ops::Const(root, {1.f, 2.f});
  auto dy = ops::Const(root, {1.f, 2.f, 3.f});
  ops::SigmoidGrad(root.WithOpName("sg"), y, dy);
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("'sg'"));
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("[2], [3]"));

  Scope r2 = Scope::NewRootScope();
  auto py = ops::Placeholder(r2, DT_FLOAT);
  auto pdy = ops::Placeholder(r2, DT_FLOAT);
  auto g = ops::TanhGrad(r2.WithOpName("tg"), py, pdy);
  absl::Status s = FetchStatus(r2, g, {{py, {1.f, 2.f}}, {pdy, {1.f}}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("[2] and [1]"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("tg"));
}

TEST(MathCwiseOpsTest, Select) {
  Scope root = Scope::NewRootScope();
  auto t = ops::Const(root, {{1, 2}, {3, 4}});
  auto e = ops::Const(root, {{10, 20}, {30, 40}});
  auto same = ops::Select(root, ops::Const(root, {{true, false}, {false, true}}), t, e);
  auto rows = ops::Select(root, {false, true}, t, e);
  auto scalar = ops::Select(root, true, t, e);
  auto v2 = ops::SelectV2(root, {true, false}, t, 0);
  auto v2col = ops::SelectV2(root, Tensor::FromVector<bool>({true, false}, TensorShape({2, 1})), {1.f, 2.f}, -1.f);
  auto half_sel = ops::Select(root, {true, false},
                              Tensor::Vector<half>({half(1.f), half(2.f)}),
                              Tensor::Vector<half>({half(3.f), half(4.f)}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<int32_t>(Eval(root, same)), ElementsAre(1, 20, 30, 4));
  EXPECT_THAT(Values<int32_t>(Eval(root, rows)), ElementsAre(10, 20, 3, 4));
  EXPECT_THAT(Values<int32_t>(Eval(root, scalar)), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Values<int32_t>(Eval(root, v2)), ElementsAre(1, 0, 3, 0));
  Tensor c = Eval(root, v2col);
  EXPECT_EQ(c.shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(c), ElementsAre(1.f, 2.f, -1.f, -1.f));
  Tensor h = Eval(root, half_sel);
  EXPECT_EQ(static_cast<float>(h.data<half>()[0]), 1.f);
  EXPECT_EQ(static_cast<float>(h.data<half>()[1]), 4.f);
}

TEST(MathCwiseOpsTest, SelectShapeErrors) {
  Scope root = Scope::NewRootScope();
  // Inputs are built first: constants made from initializers inside the
  // named op's call would take its WithOpName name.
  auto cond = ops::Const(root, {true, false, true});
  auto data = ops::Const(root, {{1, 2}, {3, 4}});
  ops::Select(root.WithOpName("sel"), cond, data, data);
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("'sel'"));
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("[3], [2,2], [2,2]"));

  Scope r2 = Scope::NewRootScope();
  ops::Select(r2, true, {1, 2}, {1, 2, 3});
  EXPECT_EQ(r2.status().code(), absl::StatusCode::kInvalidArgument);

  Scope r3 = Scope::NewRootScope();
  auto c = ops::Placeholder(r3, DT_BOOL);
  auto sel = ops::Select(r3, c, {{1, 2}, {3, 4}}, {{5, 6}, {7, 8}});
  absl::Status s = FetchStatus(r3, sel, {{c, {true, false, true}}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("[3]"));
}

TEST(MathCwiseOpsTest, ShapeInference) {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 3}));
  auto u = ops::Placeholder(root, DT_FLOAT);
  auto add = ops::Add(root, p, {1.f, 2.f, 3.f});
  auto outer = ops::Add(root, p, ops::Placeholder(root, DT_FLOAT,
                                                  ops::Placeholder::Shape({4, 1, 1})));
  auto unknown = ops::Mul(root, p, u);
  auto cmp = ops::Less(root, p, 0.f);
  auto sel = ops::SelectV2(root, cmp, p, ops::Placeholder(root, DT_FLOAT,
                                                          ops::Placeholder::Shape({2, 1})));
  auto grad = ops::ReluGrad(root, p, ops::Placeholder(root, DT_FLOAT,
                                                      ops::Placeholder::Shape({5, -1})));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Output(add).shape(), TensorShape({-1, 3}));
  EXPECT_EQ(Output(outer).shape(), TensorShape({4, -1, 3}));
  EXPECT_TRUE(Output(unknown).shape().unknown_rank());
  EXPECT_EQ(Output(cmp).shape(), TensorShape({-1, 3}));
  EXPECT_EQ(Output(sel).shape(), TensorShape({2, 3}));
  EXPECT_EQ(Output(grad).shape(), TensorShape({5, 3}));
  EXPECT_EQ(Output(ops::Sqrt(root, p)).shape(), TensorShape({-1, 3}));
}

TEST(MathCwiseOpsTest, IllShapedBinaryOpIsRecordedOnTheScope) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({2, 3}));
  auto b = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({4}));
  ops::Add(root.WithOpName("bad_add"), a, b);
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("Incompatible shapes"));
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("'bad_add'"));
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("[2,3], [4]"));
}

TEST(MathCwiseOpsTest, TypeErrors) {
  Scope root = Scope::NewRootScope();
  ops::Add(root, {1.f}, {1});
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  Scope r2 = Scope::NewRootScope();
  ops::Sqrt(r2, {4});  // Sqrt is for float types only
  EXPECT_EQ(r2.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r2.status().message()), HasSubstr("int32"));
}

TEST(MathCwiseOpsTest, RuntimeBroadcastError) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_FLOAT);
  auto b = ops::Placeholder(root, DT_FLOAT);
  auto sum = ops::Add(root.WithOpName("sum"), a, b);
  absl::Status s = FetchStatus(root, sum, {{a, {1.f, 2.f}}, {b, {1.f, 2.f, 3.f}}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Incompatible shapes: [2] vs. [3]"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("sum"));
  // The same graph runs with compatible feeds.
  Tensor ok = Eval(root, sum, {{a, {1.f, 2.f}}, {b, Column({10.f, 20.f})}});
  EXPECT_EQ(ok.shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(ok), ElementsAreArray({11.f, 12.f, 21.f, 22.f}));
}

}  // namespace
}  // namespace tensorflow_ipu
