#include "tensorflow_ipu/core/lib/random.h"

#include <cmath>

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace {

TEST(CounterRandomTest, SameSeedsSameValuesOtherSeedsOtherValues) {
  CounterRandom a(1, 2), b(1, 2), c(1, 3), d(2, 2);
  for (uint64_t i = 0; i < 100; ++i) EXPECT_EQ(a.Bits(i), b.Bits(i));
  int same_c = 0, same_d = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    same_c += a.Bits(i) == c.Bits(i);
    same_d += a.Bits(i) == d.Bits(i);
  }
  EXPECT_EQ(same_c, 0);
  EXPECT_EQ(same_d, 0);
}

TEST(CounterRandomTest, UniformAndNormalHaveTheRightMoments) {
  CounterRandom r(42, 0);
  const int n = 200000;
  double su = 0, su2 = 0, sn = 0, sn2 = 0;
  float lo = 1, hi = 0;
  for (int i = 0; i < n; ++i) {
    const float u = r.Uniform(i);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    su += u;
    su2 += u * u;
    const double x = r.Normal(i);
    sn += x;
    sn2 += x * x;
  }
  EXPECT_GE(lo, 0.0f);
  EXPECT_LT(hi, 1.0f);
  EXPECT_NEAR(su / n, 0.5, 0.005);
  EXPECT_NEAR(su2 / n - 0.25, 1.0 / 12, 0.005);  // variance of U(0,1)
  EXPECT_NEAR(sn / n, 0.0, 0.01);
  EXPECT_NEAR(sn2 / n, 1.0, 0.01);
}

}  // namespace
}  // namespace tensorflow_ipu
