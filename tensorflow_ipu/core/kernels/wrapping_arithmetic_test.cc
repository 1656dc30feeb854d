#include "tensorflow_ipu/core/kernels/wrapping_arithmetic.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {
namespace {

constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kMin = std::numeric_limits<int32_t>::lowest();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::lowest();

TEST(WrappingArithmeticTest, ScalarsWrapRoundAtTheEdges) {
  EXPECT_EQ(wrapping::Add(kMax, 1), kMin);
  EXPECT_EQ(wrapping::Subtract(kMin, 1), kMax);
  EXPECT_EQ(wrapping::Multiply(65536, 65536), 0);
  EXPECT_EQ(wrapping::Multiply(kMax, kMax), 1);
  EXPECT_EQ(wrapping::Negate(kMin), kMin);
  EXPECT_EQ(wrapping::Add(kMax64, int64_t{1}), kMin64);
  EXPECT_EQ(wrapping::Negate(kMin64), kMin64);
  // Types narrower than int are promoted to it in C++: 255 x 255 as int16.
  EXPECT_EQ(wrapping::Multiply<int16_t>(int16_t{255}, int16_t{255}), int16_t{-511});
  EXPECT_EQ(wrapping::Multiply<uint16_t>(uint16_t{65535}, uint16_t{65535}), uint16_t{1});
  // Floating point is untouched.
  EXPECT_EQ(wrapping::Add(1.5f, 2.25f), 3.75f);
  EXPECT_EQ(wrapping::Negate(-0.0), 0.0);
}

TEST(WrappingArithmeticTest, TensorExpressionsWrapForIntegersOnly) {
  int32_t a[3] = {kMax, kMin, 65536}, b[3] = {1, 1, 65536}, out[3];
  Eigen::TensorMap<Eigen::Tensor<int32_t, 1, Eigen::RowMajor>> av(a, 3), bv(b, 3), ov(out, 3);
  ov = wrapping::Plus(av, bv);
  EXPECT_EQ(out[0], kMin);
  EXPECT_EQ(out[1], kMin + 1);
  EXPECT_EQ(out[2], 131072);
  ov = wrapping::Minus(bv, av);
  EXPECT_EQ(out[0], kMin + 2);
  EXPECT_EQ(out[1], kMin + 1);
  ov = wrapping::Times(av, bv);
  EXPECT_EQ(out[2], 0);
  ov = wrapping::Negated(av);
  EXPECT_EQ(out[1], kMin);
  ov = wrapping::Squared(av);
  EXPECT_EQ(out[0], 1);
  ov = wrapping::Plus(av, av.constant(-1));
  EXPECT_EQ(out[1], kMax);
  float f[2] = {1.5f, -2.f}, g[2];
  Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>> fv(f, 2), gv(g, 2);
  gv = wrapping::Squared(fv);
  EXPECT_EQ(g[1], 4.f);
}

TEST(WrappingArithmeticTest, ReducersWrapRound) {
  int32_t v[4] = {kMax, 1, 65536, 65536};
  Eigen::TensorMap<Eigen::Tensor<int32_t, 2, Eigen::RowMajor>> m(v, 2, 2);
  Eigen::Tensor<int32_t, 1, Eigen::RowMajor> sums =
      m.reduce(Eigen::array<Eigen::Index, 1>{1}, wrapping::SumReducer<int32_t>());
  EXPECT_EQ(sums(0), kMin);
  EXPECT_EQ(sums(1), 131072);
  Eigen::Tensor<int32_t, 1, Eigen::RowMajor> products =
      m.reduce(Eigen::array<Eigen::Index, 1>{1}, wrapping::ProdReducer<int32_t>());
  EXPECT_EQ(products(0), kMax);
  EXPECT_EQ(products(1), 0);
}

}  // namespace
}  // namespace tensorflow_ipu
