// MatMul, BiasAdd, BiasAddGrad and Cast through ClientSession.
#include <cmath>
#include <string>
#include <tuple>
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

TEST(MathMatMulTest, AllTransposes) {
  Scope root = Scope::NewRootScope();
  // a = [[1,2,3],[4,5,6]], b = [[1,2],[3,4],[5,6]]: a*b = [[22,28],[49,64]].
  auto a = ops::Const(root, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  auto b = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
  auto at = ops::Const(root, {{1.f, 4.f}, {2.f, 5.f}, {3.f, 6.f}});
  auto bt = ops::Const(root, {{1.f, 3.f, 5.f}, {2.f, 4.f, 6.f}});
  auto ab = ops::MatMul(root, a, b);
  auto atb = ops::MatMul(root, at, b, ops::MatMul::TransposeA(true));
  auto abt = ops::MatMul(root, a, bt, ops::MatMul::TransposeB(true));
  auto atbt = ops::MatMul(root, at, bt,
                          ops::MatMul::TransposeA(true).TransposeB(true));
  ASSERT_TRUE(root.ok()) << root.status();
  for (const Output& o : {Output(ab), Output(atb), Output(abt), Output(atbt)}) {
    EXPECT_EQ(o.shape(), TensorShape({2, 2}));
    Tensor t = Eval(root, o);
    EXPECT_EQ(t.shape(), TensorShape({2, 2}));
    EXPECT_THAT(Values<float>(t), ElementsAre(22, 28, 49, 64)) << o.name();
  }
}

TEST(MathMatMulTest, OtherTypes) {
  Scope root = Scope::NewRootScope();
  auto i = ops::MatMul(root, {{1, 2}, {3, 4}}, {{5, 6}, {7, 8}});
  auto d = ops::MatMul(root, {{1.0, 2.0}},
                       Tensor::FromVector<double>({3.0, 4.0}, TensorShape({2, 1})));  // [1,2] x [2,1]
  auto h = ops::MatMul(root,
                       Tensor::FromVector<half>({half(1.f), half(2.f)}, TensorShape({1, 2})),
                       Tensor::FromVector<half>({half(3.f), half(0.5f)}, TensorShape({2, 1})));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<int32_t>(Eval(root, i)), ElementsAre(19, 22, 43, 50));
  Tensor dt = Eval(root, d);
  EXPECT_EQ(dt.shape(), TensorShape({1, 1}));
  EXPECT_EQ(dt.data<double>()[0], 11.0);
  Tensor ht = Eval(root, h);
  ASSERT_EQ(ht.dtype(), DT_HALF);
  EXPECT_EQ(static_cast<float>(ht.data<half>()[0]), 4.f);
}

TEST(MathMatMulTest, LargeProductMatchesNaiveReference) {
  const int m = 32, k = 784, n = 256;
  std::vector<float> av(m * k), bv(k * n);
  for (int i = 0; i < m * k; ++i) av[i] = static_cast<float>((i * 7) % 13) - 6.f;
  for (int i = 0; i < k * n; ++i) bv[i] = static_cast<float>((i * 5) % 11) * 0.25f;
  Scope root = Scope::NewRootScope();
  auto p = ops::MatMul(root, Tensor::FromVector(av, TensorShape({m, k})),
                       Tensor::FromVector(bv, TensorShape({k, n})));
  ASSERT_TRUE(root.ok()) << root.status();
  std::vector<float> got = Values<float>(Eval(root, p));
  ASSERT_EQ(got.size(), static_cast<size_t>(m * n));
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int q = 0; q < k; ++q) ref += double{av[i * k + q]} * bv[q * n + j];
      // Values are multiples of 1/4 well inside float's exact range.
      ASSERT_EQ(got[i * n + j], static_cast<float>(ref)) << i << "," << j;
    }
  }
}

// Products above the kernel's parallel threshold (16M multiply-adds) are
// split over the pool's threads, by rows for tall outputs and by columns
// for wide ones; every transpose must still give the exact product.
TEST(MathMatMulTest, ProductsSplitOverThreadsMatchTheReference) {
  for (const auto& [m, k, n] : {std::tuple<int, int, int>{64, 512, 520},
                                std::tuple<int, int, int>{520, 512, 64}}) {
    std::vector<float> av(m * k), bv(k * n), at(k * m), bt(n * k);
    for (int i = 0; i < m; ++i) {
      for (int q = 0; q < k; ++q) {
        av[i * k + q] = static_cast<float>((i * 7 + q * 3) % 13) - 6.f;
        at[q * m + i] = av[i * k + q];
      }
    }
    for (int q = 0; q < k; ++q) {
      for (int j = 0; j < n; ++j) {
        bv[q * n + j] = static_cast<float>((q * 5 + j) % 11) * 0.25f;
        bt[j * k + q] = bv[q * n + j];
      }
    }
    Scope root = Scope::NewRootScope();
    auto a = ops::Const(root, Tensor::FromVector(av, TensorShape({m, k})));
    auto a_t = ops::Const(root, Tensor::FromVector(at, TensorShape({k, m})));
    auto b = ops::Const(root, Tensor::FromVector(bv, TensorShape({k, n})));
    auto b_t = ops::Const(root, Tensor::FromVector(bt, TensorShape({n, k})));
    using M = ops::MatMul;
    std::vector<Output> products = {
        M(root, a, b), M(root, a_t, b, M::TransposeA(true)),
        M(root, a, b_t, M::TransposeB(true)),
        M(root, a_t, b_t, M::TransposeA(true).TransposeB(true))};
    ASSERT_TRUE(root.ok()) << root.status();
    SessionOptions options;
    options.num_threads = 4;
    ClientSession session(root, options);
    std::vector<Tensor> out;
    {
      absl::Status status = session.Run(products, &out);
      ASSERT_TRUE(status.ok()) << status;
    }
    for (size_t p = 0; p < products.size(); ++p) {
      std::vector<float> got = Values<float>(out[p]);
      ASSERT_EQ(got.size(), static_cast<size_t>(m * n));
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double ref = 0;
          for (int q = 0; q < k; ++q) ref += double{av[i * k + q]} * bv[q * n + j];
          ASSERT_EQ(got[i * n + j], static_cast<float>(ref))
              << "product " << p << " of " << m << "x" << k << "x" << n << " at " << i
              << "," << j;
        }
      }
    }
  }
}

TEST(MathMatMulTest, EmptyDimensions) {
  Scope root = Scope::NewRootScope();
  auto zero_k = ops::MatMul(root, Tensor(DT_FLOAT, TensorShape({2, 0})),
                            Tensor(DT_FLOAT, TensorShape({0, 3})));
  auto zero_m = ops::MatMul(root, Tensor(DT_FLOAT, TensorShape({0, 4})),
                            Tensor(DT_FLOAT, TensorShape({4, 3})));
  ASSERT_TRUE(root.ok()) << root.status();
  Tensor z = Eval(root, zero_k);
  EXPECT_EQ(z.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(z), ElementsAre(0, 0, 0, 0, 0, 0));
  EXPECT_EQ(Eval(root, zero_m).shape(), TensorShape({0, 3}));
}

TEST(MathMatMulTest, ShapeInferenceAndErrors) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 784}));
  auto w = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({784, 10}));
  auto u = ops::Placeholder(root, DT_FLOAT);
  auto p = ops::MatMul(root, a, w);
  auto pu = ops::MatMul(root, u, w, ops::MatMul::TransposeB(true));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Output(p).shape(), TensorShape({-1, 10}));
  EXPECT_EQ(Output(pu).shape(), TensorShape({-1, 784}));

  Scope r1 = Scope::NewRootScope();
  auto x = ops::Placeholder(r1, DT_FLOAT, ops::Placeholder::Shape({2, 3}));
  auto y = ops::Placeholder(r1, DT_FLOAT, ops::Placeholder::Shape({4, 5}));
  ops::MatMul(r1.WithOpName("mm"), x, y);
  EXPECT_EQ(r1.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r1.status().message()), HasSubstr("Dimensions must be equal, but are 3 and 4"));
  EXPECT_THAT(std::string(r1.status().message()), HasSubstr("'mm'"));
  EXPECT_THAT(std::string(r1.status().message()), HasSubstr("[2,3], [4,5]"));

  Scope r2 = Scope::NewRootScope();
  ops::MatMul(r2, {1.f, 2.f}, {{1.f}, {2.f}});
  EXPECT_EQ(r2.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r2.status().message()), HasSubstr("Shape must be rank 2 but is rank 1"));

  Scope r3 = Scope::NewRootScope();
  auto f0 = ops::Placeholder(r3, DT_FLOAT);
  auto f1 = ops::Placeholder(r3, DT_FLOAT);
  auto mm = ops::MatMul(r3.WithOpName("dyn_mm"), f0, f1);
  absl::Status s = FetchStatus(r3, mm, {{f0, {{1.f, 2.f}}}, {f1, {{1.f, 2.f}}}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Matrix size-incompatible: In[0]: [1,2], In[1]: [1,2]"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("dyn_mm"));
  s = FetchStatus(r3, mm, {{f0, {1.f, 2.f}}, {f1, {{1.f, 2.f}}}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("In[0] is not a matrix"));
}

TEST(MathBiasAddTest, NhwcAndNchw) {
  Scope root = Scope::NewRootScope();
  auto v = ops::Const(root, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  auto nhwc = ops::BiasAdd(root, v, {10.f, 20.f, 30.f});
  // NCHW [1, 2, 3]: channel 0 gets +1, channel 1 gets +2.
  auto x3 = Tensor::FromVector<float>({0, 0, 0, 0, 0, 0}, TensorShape({1, 2, 3}));
  auto nchw = ops::BiasAdd(root, x3, {1.f, 2.f}, ops::BiasAdd::DataFormat("NCHW"));
  // Rank 4 NHWC: the last dimension.
  auto x4 = Tensor::FromVector<float>(std::vector<float>(8, 1.f), TensorShape({2, 2, 1, 2}));
  auto nhwc4 = ops::BiasAdd(root, x4, {1.f, -1.f});
  auto half_add = ops::BiasAdd(
      root, Tensor::FromVector<half>({half(1.f), half(2.f)}, TensorShape({1, 2})),
      Tensor::Vector<half>({half(0.5f), half(0.25f)}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_THAT(Values<float>(Eval(root, nhwc)), ElementsAre(11, 22, 33, 14, 25, 36));
  EXPECT_THAT(Values<float>(Eval(root, nchw)), ElementsAre(1, 1, 1, 2, 2, 2));
  EXPECT_THAT(Values<float>(Eval(root, nhwc4)), ElementsAre(2, 0, 2, 0, 2, 0, 2, 0));
  Tensor h = Eval(root, half_add);
  EXPECT_EQ(static_cast<float>(h.data<half>()[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(h.data<half>()[1]), 2.25f);
}

TEST(MathBiasAddTest, Errors) {
  Scope root = Scope::NewRootScope();
  // Inputs are built first: constants made from initializers inside the
  // named op's call would take its WithOpName name.
  auto value = ops::Const(root, {{1.f, 2.f}});
  auto bias = ops::Const(root, {1.f, 2.f, 3.f});
  ops::BiasAdd(root.WithOpName("ba"), value, bias);
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("Dimensions must be equal, but are 2 and 3"));
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("'ba'"));

  Scope r2 = Scope::NewRootScope();
  ops::BiasAdd(r2, {1.f, 2.f}, {1.f, 2.f});
  EXPECT_EQ(r2.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r2.status().message()), HasSubstr("at least rank 2"));

  Scope r3 = Scope::NewRootScope();
  ops::BiasAdd(r3, {{1.f, 2.f}}, {1.f, 2.f}, ops::BiasAdd::DataFormat("NWHC"));
  EXPECT_EQ(r3.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r3.status().message()), HasSubstr("Invalid data_format 'NWHC'"));

  Scope r4 = Scope::NewRootScope();
  auto v = ops::Placeholder(r4, DT_FLOAT);
  auto ba = ops::BiasAdd(r4, v, {1.f, 2.f});
  absl::Status s = FetchStatus(r4, ba, {{v, {{1.f, 2.f, 3.f}}}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("[2] vs. [1,3]"));
}

TEST(MathBiasAddTest, BiasAddGrad) {
  Scope root = Scope::NewRootScope();
  auto g = ops::Const(root, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  auto nhwc = ops::BiasAddGrad(root, g);
  auto g3 = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({2, 2, 2}));
  auto nchw = ops::BiasAddGrad(root, g3, ops::BiasAddGrad::DataFormat("NCHW"));
  auto gh = ops::BiasAddGrad(
      root, Tensor::FromVector<half>(std::vector<half>(4096, half(1.f)),
                                     TensorShape({4096, 1})));
  auto p = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 7}));
  auto shaped = ops::BiasAddGrad(root, p);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Output(nhwc).shape(), TensorShape({3}));
  EXPECT_EQ(Output(shaped).shape(), TensorShape({7}));
  EXPECT_THAT(Values<float>(Eval(root, nhwc)), ElementsAre(5, 7, 9));
  // channel 0: 1+2+5+6, channel 1: 3+4+7+8.
  EXPECT_THAT(Values<float>(Eval(root, nchw)), ElementsAre(14, 22));
  EXPECT_EQ(static_cast<float>(Eval(root, gh).data<half>()[0]), 4096.f);
}

// Sizes past the thread-pool threshold, checked against plain loops (small
// integers in float are exact whatever the summation order).
TEST(MathBiasAddTest, LargeTensorsMatchReference) {
  for (bool nchw : {false, true}) {
    const int64_t n = 4, c = 16, inner = nchw ? 1024 : 1;
    const int64_t outer = nchw ? n : n * 1024;
    const TensorShape shape =
        nchw ? TensorShape({n, c, inner}) : TensorShape({outer, c});
    std::vector<float> v(outer * c * inner), bias(c);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 17);
    for (int64_t k = 0; k < c; ++k) bias[k] = static_cast<float>(k) * 0.5f;
    Scope root = Scope::NewRootScope();
    const std::string format = nchw ? "NCHW" : "NHWC";
    auto add = ops::BiasAdd(root, Tensor::FromVector(v, shape), Tensor::Vector(bias),
                            ops::BiasAdd::DataFormat(format));
    auto grad = ops::BiasAddGrad(root, Tensor::FromVector(v, shape),
                                 ops::BiasAddGrad::DataFormat(format));
    ASSERT_TRUE(root.ok()) << root.status();
    std::vector<float> got = Values<float>(Eval(root, add));
    std::vector<float> got_grad = Values<float>(Eval(root, grad));
    std::vector<float> expect_grad(c, 0.f);
    for (size_t i = 0; i < v.size(); ++i) {
      const int64_t channel = (static_cast<int64_t>(i) / inner) % c;
      ASSERT_EQ(got[i], v[i] + bias[channel]) << format << " " << i;
      expect_grad[channel] += v[i];
    }
    EXPECT_EQ(got_grad, expect_grad) << format;
  }
}

TEST(MathCastTest, Conversions) {
  Scope root = Scope::NewRootScope();
  auto f2i = ops::Cast(root, {1.7f, -1.7f, 0.f}, DT_INT32);
  auto i2b = ops::Cast(root, {0, 3, -1}, DT_BOOL);
  auto b2f = ops::Cast(root, {true, false}, DT_FLOAT);
  auto f2h = ops::Cast(root, {0.5f, 1024.f}, DT_HALF);
  auto h2f = ops::Cast(root, f2h, DT_FLOAT);
  auto i64d = ops::Cast(root, {int64_t{1} << 40}, DT_DOUBLE);
  auto u8 = ops::Cast(root, {255, 7}, DT_UINT8);
  auto u8i = ops::Cast(root, u8, DT_INT64);
  auto same = ops::Cast(root, {1.f, 2.f}, DT_FLOAT, ops::Cast::Truncate(true));
  auto h2i = ops::Cast(root, f2h, DT_INT32);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Output(f2i).type(), DT_INT32);
  EXPECT_THAT(Values<int32_t>(Eval(root, f2i)), ElementsAre(1, -1, 0));
  EXPECT_THAT(Values<bool>(Eval(root, i2b)), ElementsAre(false, true, true));
  EXPECT_THAT(Values<float>(Eval(root, b2f)), ElementsAre(1.f, 0.f));
  EXPECT_EQ(Eval(root, f2h).dtype(), DT_HALF);
  EXPECT_THAT(Values<float>(Eval(root, h2f)), ElementsAre(0.5f, 1024.f));
  EXPECT_EQ(Eval(root, i64d).data<double>()[0], 1099511627776.0);
  EXPECT_THAT(Values<uint8_t>(Eval(root, u8)), ElementsAre(255, 7));
  EXPECT_THAT(Values<int64_t>(Eval(root, u8i)), ElementsAre(255, 7));
  EXPECT_THAT(Values<float>(Eval(root, same)), ElementsAre(1.f, 2.f));
  EXPECT_THAT(Values<int32_t>(Eval(root, h2i)), ElementsAre(0, 1024));

  Scope r2 = Scope::NewRootScope();
  auto p = ops::Placeholder(r2, DT_FLOAT, ops::Placeholder::Shape({-1, 2}));
  EXPECT_EQ(Output(ops::Cast(r2, p, DT_HALF)).shape(), TensorShape({-1, 2}));
}

}  // namespace
}  // namespace tensorflow_ipu
