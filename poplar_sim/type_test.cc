#include <cstdint>
#include <limits>

#include "Eigen/Core"
#include "poplar_sim/type.h"

#include "gtest/gtest.h"

namespace poplar_sim {
namespace {

TEST(TypeTest, SizesMatchTheDevice) {
  EXPECT_EQ(typeSize(FLOAT), 4u);
  EXPECT_EQ(typeSize(HALF), 2u);
  EXPECT_EQ(typeSize(INT), 4u);
  EXPECT_EQ(typeSize(LONGLONG), 8u);
  EXPECT_EQ(typeSize(BOOL), 1u);
  EXPECT_EQ(typeSize(CHAR), 1u);
}

TEST(TypeTest, NamesRoundTrip) {
  for (Type t : {FLOAT, HALF, INT, UNSIGNED_INT, LONGLONG, BOOL, CHAR,
                 UNSIGNED_CHAR}) {
    auto back = typeFromName(typeName(t));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, t);
  }
  EXPECT_EQ(typeFromName("double").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(TypeTest, ConvertTruncatesAndRounds) {
  float src[4] = {1.7f, -2.5f, 0.0f, 65504.0f};
  int32_t ints[4];
  convertElements(FLOAT, src, INT, ints, 4);
  EXPECT_EQ(ints[0], 1);
  EXPECT_EQ(ints[1], -2);
  bool bools[4];
  convertElements(FLOAT, src, BOOL, bools, 4);
  EXPECT_TRUE(bools[0]);
  EXPECT_FALSE(bools[2]);
  Eigen::half halves[4];
  convertElements(FLOAT, src, HALF, halves, 4);
  EXPECT_EQ(static_cast<float>(halves[3]), 65504.0f);
  EXPECT_EQ(static_cast<float>(halves[1]), -2.5f);
}

TEST(TypeTest, LoadStoreAsDouble) {
  Eigen::half h[2];
  storeFromDouble(HALF, h, 1, 0.5);
  EXPECT_EQ(loadAsDouble(HALF, h, 1), 0.5);
  int64_t l[1];
  storeFromDouble(LONGLONG, l, 0, -7);
  EXPECT_EQ(l[0], -7);
}

// saturatingToInteger, now public for popops: every double has a defined
// integer, at the edges of each type too.
TEST(TypeTest, SaturatingToIntegerAtTheEdges) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(saturatingToInteger<int32_t>(nan), 0);
  EXPECT_EQ(saturatingToInteger<int32_t>(inf), INT32_MAX);
  EXPECT_EQ(saturatingToInteger<int32_t>(-inf), INT32_MIN);
  EXPECT_EQ(saturatingToInteger<int32_t>(2147483647.9), INT32_MAX);
  EXPECT_EQ(saturatingToInteger<int32_t>(-2147483648.0), INT32_MIN);
  EXPECT_EQ(saturatingToInteger<int32_t>(-0.5), 0);
  EXPECT_EQ(saturatingToInteger<int64_t>(9223372036854775808.0), INT64_MAX);  // 2^63
  EXPECT_EQ(saturatingToInteger<int64_t>(-9223372036854775808.0), INT64_MIN);
  EXPECT_EQ(saturatingToInteger<int64_t>(1e300), INT64_MAX);
  EXPECT_EQ(saturatingToInteger<uint32_t>(-1.0), 0u);
  EXPECT_EQ(saturatingToInteger<uint32_t>(4294967296.0), UINT32_MAX);
  EXPECT_EQ(saturatingToInteger<int8_t>(-300.0), -128);
}

}  // namespace
}  // namespace poplar_sim
