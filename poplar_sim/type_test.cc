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

}  // namespace
}  // namespace poplar_sim
