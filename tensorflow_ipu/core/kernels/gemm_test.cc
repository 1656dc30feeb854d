#include "tensorflow_ipu/core/kernels/gemm.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "third_party/dnnl/one_thread_sgemm.h"

namespace tensorflow_ipu {
namespace {

struct Shape {
  int64_t m, k, n;
  bool ta, tb;
};

// Values whose products round, so that a different summation order shows
// in the bits.
std::vector<float> Values(int64_t count, int salt) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = float((i * (5 + salt)) % 13) * 0.37f - 2.3f;
  return v;
}

// op(a) op(b) for `shape` with a device of `threads` threads.
std::vector<float> Product(const Shape& s, int threads) {
  const std::vector<float> a = Values(s.m * s.k, 0), b = Values(s.k * s.n, 2);
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  std::vector<float> out(s.m * s.n, -1.f);
  Gemm<float>(device, a.data(), s.ta ? s.k : s.m, s.ta ? s.m : s.k, s.ta, b.data(),
              s.tb ? s.n : s.k, s.tb ? s.k : s.n, s.tb, out.data());
  return out;
}

// The product in double, from the same storage.
std::vector<double> Reference(const Shape& s) {
  const std::vector<float> a = Values(s.m * s.k, 0), b = Values(s.k * s.n, 2);
  std::vector<double> out(s.m * s.n, 0.0);
  for (int64_t r = 0; r < s.m; ++r) {
    for (int64_t c = 0; c < s.n; ++c) {
      double acc = 0;
      for (int64_t i = 0; i < s.k; ++i) {
        const double x = s.ta ? a[i * s.m + r] : a[r * s.k + i];
        const double y = s.tb ? b[c * s.k + i] : b[i * s.n + c];
        acc += x * y;
      }
      out[r * s.n + c] = acc;
    }
  }
  return out;
}

// Products large enough to be split over the session's threads, on both
// libraries (oneDNN for outputs 16 columns wide or more, Eigen for the
// 10-column ones), split by rows (tall outputs) and by columns (wide ones),
// each transpose: the values are right, and their bits are the same for 1,
// 2 and 3 threads.
TEST(GemmTest, SplitProductsKeepTheirBitsForAnyThreadCount) {
  for (const Shape& s : {Shape{32, 784, 256, false, false}, Shape{784, 32, 256, true, false},
                         Shape{256, 128, 32, false, true}, Shape{96, 300, 200, true, true},
                         Shape{4096, 512, 10, false, false}, Shape{10, 512, 4096, true, false}}) {
    const std::vector<float> one = Product(s, 1);
    const std::vector<double> want = Reference(s);
    for (size_t i = 0; i < one.size(); ++i) {
      ASSERT_NEAR(one[i], want[i], 1e-4 * (1 + std::fabs(want[i])))
          << s.m << "x" << s.k << "x" << s.n << " ta=" << s.ta << " tb=" << s.tb
          << " element " << i;
    }
    for (int threads : {2, 3}) {
      const std::vector<float> split = Product(s, threads);
      for (size_t i = 0; i < one.size(); ++i) {
        ASSERT_EQ(split[i], one[i]) << s.m << "x" << s.k << "x" << s.n << " ta=" << s.ta
                                    << " tb=" << s.tb << " on " << threads
                                    << " threads, element " << i;
      }
    }
  }
}

// A product of few rows and a deep sum through weights (b not
// transposed: the depth runs along the weights' rows) is the sum of two
// oneDNN products over the halves of its depth, split at a multiple of 48
// (384 of 784 and 144 of 256, so that each half reads the weight rows its
// thread wrote in the update, which splits the rows there), for any number
// of threads: bit for bit that sum, in that order.
TEST(GemmTest, FewRowsDeepProductsAreTheSumOfTheirDepthHalves) {
  for (const Shape& s : {Shape{32, 784, 256, false, false}, Shape{32, 784, 256, true, false},
                         Shape{32, 256, 128, false, false}, Shape{16, 1000, 200, true, false}}) {
    const std::vector<float> a = Values(s.m * s.k, 0), b = Values(s.k * s.n, 2);
    const int64_t lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n;
    const int64_t half = (s.k + 48) / 96 * 48;
    std::vector<float> first(s.m * s.n), second(s.m * s.n);
    ASSERT_TRUE(dnnl_one_thread::Sgemm(s.ta, s.tb, s.m, s.n, half, a.data(), lda, b.data(), ldb,
                                       first.data(), s.n))
        << "oneDNN refused the first half of " << s.m << "x" << s.k << "x" << s.n;
    ASSERT_TRUE(dnnl_one_thread::Sgemm(s.ta, s.tb, s.m, s.n, s.k - half,
                                       a.data() + (s.ta ? half * lda : half), lda,
                                       b.data() + (s.tb ? half : half * ldb), ldb,
                                       second.data(), s.n))
        << "oneDNN refused the second half of " << s.m << "x" << s.k << "x" << s.n;
    for (int threads : {1, 2, 3}) {
      const std::vector<float> got = Product(s, threads);
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], first[i] + second[i])
            << s.m << "x" << s.k << "x" << s.n << " ta=" << s.ta << " tb=" << s.tb << " on "
            << threads << " threads, element " << i;
      }
    }
  }
}

// A product of few rows through transposed weights (an input gradient:
// dx = dy w^T, where the depth runs along the weights' columns) is split
// by its output columns, which are the weights' rows, at the update's
// boundary, never by depth: every element is oneDNN's sum over the whole
// depth, for any number of threads. Split by depth, each thread would read
// half of every row of the weights, which the other thread wrote.
TEST(GemmTest, ProductsThroughTransposedWeightsSplitByOutputColumns) {
  for (const Shape& s : {Shape{32, 128, 256, false, true}, Shape{32, 256, 784, false, true}}) {
    const std::vector<float> a = Values(s.m * s.k, 0), b = Values(s.k * s.n, 2);
    std::vector<float> whole(s.m * s.n);
    ASSERT_TRUE(dnnl_one_thread::Sgemm(s.ta, s.tb, s.m, s.n, s.k, a.data(), s.k, b.data(), s.k,
                                       whole.data(), s.n))
        << "oneDNN refused " << s.m << "x" << s.k << "x" << s.n;
    for (int threads : {1, 2, 3}) {
      const std::vector<float> got = Product(s, threads);
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], whole[i]) << s.m << "x" << s.k << "x" << s.n << " tb=" << s.tb
                                    << " on " << threads << " threads, element " << i;
      }
    }
  }
}

// out + alpha op(a) op(b) for `shape`, out starting from its own values,
// with a device of `threads` threads.
std::vector<float> ScaledAdd(const Shape& s, float alpha, int threads) {
  const std::vector<float> a = Values(s.m * s.k, 0), b = Values(s.k * s.n, 2);
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  std::vector<float> out = Values(s.m * s.n, 4);
  GemmScaledAdd(device, a.data(), s.ta ? s.k : s.m, s.ta ? s.m : s.k, s.ta, b.data(),
                s.tb ? s.n : s.k, s.tb ? s.k : s.n, s.tb, alpha, out.data());
  return out;
}

// The product added into the output in place, on both libraries and both
// splits: out + alpha * product, with the same bits for 1, 2 and 3 threads.
TEST(GemmTest, ScaledAddKeepsItsBitsForAnyThreadCount) {
  const float alpha = -0.05f;
  for (const Shape& s : {Shape{784, 32, 256, true, false}, Shape{256, 32, 128, true, false},
                         Shape{128, 32, 10, true, false}, Shape{96, 300, 200, true, true},
                         Shape{10, 512, 4096, false, true}, Shape{3, 4, 5, false, false}}) {
    const std::vector<float> one = ScaledAdd(s, alpha, 1);
    const std::vector<double> product = Reference(s);
    const std::vector<float> start = Values(s.m * s.n, 4);
    for (size_t i = 0; i < one.size(); ++i) {
      const double want = start[i] + alpha * product[i];
      ASSERT_NEAR(one[i], want, 1e-5 * (1 + std::fabs(product[i])))
          << s.m << "x" << s.k << "x" << s.n << " ta=" << s.ta << " tb=" << s.tb
          << " element " << i;
    }
    for (int threads : {2, 3}) {
      EXPECT_EQ(ScaledAdd(s, alpha, threads), one)
          << s.m << "x" << s.k << "x" << s.n << " ta=" << s.ta << " tb=" << s.tb << " on "
          << threads << " threads";
    }
  }
}

TEST(GemmTest, ScaledAddOfAnEmptyInnerDimensionLeavesTheOutput) {
  Eigen::ThreadPool pool(1);
  Eigen::ThreadPoolDevice device(&pool, 1);
  std::vector<float> out(6, 7.f);
  GemmScaledAdd(device, nullptr, 2, 0, false, nullptr, 0, 3, false, -1.f, out.data());
  EXPECT_EQ(out, std::vector<float>(6, 7.f));
}

TEST(GemmTest, AnEmptyInnerDimensionGivesZeros) {
  Eigen::ThreadPool pool(1);
  Eigen::ThreadPoolDevice device(&pool, 1);
  std::vector<float> out(6, 7.f);
  Gemm<float>(device, nullptr, 2, 0, false, nullptr, 0, 3, false, out.data());
  EXPECT_EQ(out, std::vector<float>(6, 0.f));
}

}  // namespace
}  // namespace tensorflow_ipu
