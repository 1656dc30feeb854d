// Expected strings are what numpy 1.x prints with str() for the same arrays.
#include <cmath>
#include <limits>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace {

TEST(TensorFormatTest, TutorialResult) {
  EXPECT_EQ(Tensor::Vector<float>({3.f, 8.f}).DebugString(), "[3. 8.]");
}

TEST(TensorFormatTest, FloatsPadToCommonLayout) {
  EXPECT_EQ(Tensor::Vector<float>({1.5f, 10.f}).DebugString(), "[ 1.5 10. ]");
  EXPECT_EQ(Tensor::Vector<float>({-1.5f, 2.f}).DebugString(), "[-1.5  2. ]");
  EXPECT_EQ(Tensor::Vector<float>({0.1f, 0.2f}).DebugString(), "[0.1 0.2]");
  EXPECT_EQ(Tensor::Vector<float>({1.f / 3}).DebugString(), "[0.33333334]");
  EXPECT_EQ(Tensor::Vector<double>({0.5, 0.25}).DebugString(), "[0.5  0.25]");
}

TEST(TensorFormatTest, ScientificWhenRangeIsWide) {
  EXPECT_EQ(Tensor::Vector<float>({1e-5f, 1.f}).DebugString(),
            "[1.e-05 1.e+00]");
  EXPECT_EQ(Tensor::Vector<double>({1e9, 1.}).DebugString(),
            "[1.e+09 1.e+00]");
  EXPECT_EQ(Tensor::Vector<double>({123456789.}).DebugString(),
            "[1.23456789e+08]");
}

TEST(TensorFormatTest, NonFinite) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Tensor::Vector<float>({NAN, inf, -inf, 1.5f}).DebugString(),
            "[ nan  inf -inf  1.5]");
}

TEST(TensorFormatTest, IntsAndBools) {
  EXPECT_EQ(Tensor::Vector<int32_t>({1, 2, 3}).DebugString(), "[1 2 3]");
  EXPECT_EQ(Tensor::FromVector<int64_t>({1, 2, 3, 40}, TensorShape({2, 2}))
                .DebugString(),
            "[[ 1  2]\n [ 3 40]]");
  EXPECT_EQ(Tensor::Vector<bool>({true, false}).DebugString(), "[ True False]");
}

TEST(TensorFormatTest, Nested) {
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8},
                                       TensorShape({2, 2, 2}));
  EXPECT_EQ(t.DebugString(),
            "[[[1. 2.]\n  [3. 4.]]\n\n [[5. 6.]\n  [7. 8.]]]");
}

TEST(TensorFormatTest, ScalarsAndEmpty) {
  EXPECT_EQ(Tensor::Scalar<float>(3.f).DebugString(), "3.0");
  EXPECT_EQ(Tensor::Scalar<float>(0.1f).DebugString(), "0.1");
  EXPECT_EQ(Tensor::Scalar<int32_t>(5).DebugString(), "5");
  EXPECT_EQ(Tensor::Scalar<bool>(true).DebugString(), "True");
  EXPECT_EQ(Tensor(DT_FLOAT, TensorShape({0})).DebugString(), "[]");
  EXPECT_EQ(Tensor(DT_FLOAT, TensorShape({2, 0})).DebugString(), "[]");
}

TEST(TensorFormatTest, Half) {
  EXPECT_EQ(Tensor::Vector<half>({half(0.1f), half(2.f)}).DebugString(),
            "[0.1 2. ]");
}

TEST(TensorFormatTest, WrapsLongLines) {
  std::vector<float> v(30);
  for (int i = 0; i < 30; ++i) v[i] = i;
  // numpy: width-3 words "0. " ... "29." wrap at 75 columns.
  std::string s = Tensor::Vector<float>(v).DebugString();
  EXPECT_EQ(s.substr(0, 10), "[ 0.  1.  ");
  EXPECT_NE(s.find("\n "), std::string::npos);
  for (const auto& line : {s.substr(0, s.find('\n'))}) {
    EXPECT_LE(line.size(), 75u);
  }
}

TEST(TensorFormatTest, SummarisesLargeArrays) {
  std::vector<int32_t> v(2000);
  for (int i = 0; i < 2000; ++i) v[i] = i;
  EXPECT_EQ(Tensor::Vector<int32_t>(v).DebugString(),
            "[   0    1    2 ... 1997 1998 1999]");
}

}  // namespace
}  // namespace tensorflow_ipu
