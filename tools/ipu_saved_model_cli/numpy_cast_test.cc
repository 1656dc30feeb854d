#include "Eigen/Core"
#include "tools/ipu_saved_model_cli/numpy_cast.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::HasSubstr;

std::string Cast(const Tensor& t, DataType to) {
  absl::StatusOr<Tensor> out = CastLikeNumpy(t, to, "input 'x'");
  if (!out.ok()) return std::string(out.status().message());
  return DataTypeString(out->dtype()) + " " + out->DebugString();
}

TEST(NumpyCastTest, ConvertsAsNumpyAsarrayDoes) {
  EXPECT_EQ(Cast(Tensor::Vector<double>({1, 2.5, 1e300}), DT_FLOAT), "float [1.  2.5 inf]");
  EXPECT_EQ(Cast(Tensor::Vector<int64_t>({1, -2}), DT_FLOAT), "float [ 1. -2.]");
  EXPECT_EQ(Cast(Tensor::Vector<double>({1.9, -1.9, 0}), DT_INT32), "int32 [ 1 -1  0]");
  EXPECT_EQ(Cast(Tensor::Vector<int64_t>({0, 3, -1}), DT_BOOL), "bool [False  True  True]");
  EXPECT_EQ(Cast(Tensor::Vector<bool>({true, false}), DT_DOUBLE), "double [1. 0.]");
  EXPECT_EQ(Cast(Tensor::Vector<int64_t>({255}), DT_UINT8), "uint8 [255]");
  EXPECT_EQ(Cast(Tensor::Vector<double>({0.5}), DT_HALF), "half [0.5]");
  EXPECT_EQ(Cast(Tensor::Vector<double>({1e300, -1e300}), DT_HALF), "half [ inf -inf]");
  EXPECT_EQ(Cast(Tensor::Vector<double>({70000}), DT_HALF), "half [inf]");
  EXPECT_EQ(Cast(Tensor::Vector<half>({half(2.f)}), DT_INT64), "int64 [2]");
  EXPECT_EQ(Cast(Tensor::Vector<double>({-9.2233720368547758e18}), DT_INT64),
            "int64 [-9223372036854775808]");
  const Tensor same = Tensor::Vector<float>({1});
  absl::StatusOr<Tensor> out = CastLikeNumpy(same, DT_FLOAT, "x");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->SharesBufferWith(same));
}

TEST(NumpyCastTest, RefusesWhatNumpyWouldSilentlyChange) {
  EXPECT_EQ(Cast(Tensor::Vector<int64_t>({1, int64_t{1} << 31}), DT_INT32),
            "input 'x': element 1 (2147483648) does not fit int32, the type it is fed as; give "
            "values in int32's range");
  EXPECT_THAT(Cast(Tensor::Vector<int64_t>({-1}), DT_UINT8), HasSubstr("element 0 (-1) does not fit uint8"));
  EXPECT_THAT(Cast(Tensor::Vector<double>({std::nan("")}), DT_INT32), HasSubstr("element 0 (nan)"));
  EXPECT_THAT(Cast(Tensor::Vector<double>({9.3e18}), DT_INT64), HasSubstr("does not fit int64"));
  EXPECT_THAT(Cast(Tensor::Vector<double>({2147483648.0}), DT_INT32), HasSubstr("does not fit int32"));
  EXPECT_EQ(Cast(Tensor::Vector<double>({2147483647.9}), DT_INT32), "int32 [2147483647]");
  EXPECT_EQ(Cast(Tensor::Vector<double>({255.5}), DT_UINT8), "uint8 [255]");
  EXPECT_THAT(Cast(Tensor::Vector<double>({-std::numeric_limits<double>::infinity()}), DT_UINT8),
              HasSubstr("(-inf) does not fit uint8"));
  EXPECT_EQ(Cast(Tensor::Strings({"a"}), DT_FLOAT),
            "input 'x' has type string but float is needed; strings and numbers do not convert");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
