#include "third_party/dnnl/one_thread_sgemm.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace dnnl_one_thread {
namespace {

std::vector<float> Values(int64_t n, int salt) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = float((i * (5 + salt)) % 13) * 0.37f - 2.3f;
  return v;
}

// op(a) op(b) in double from the stored operands.
double Reference(bool ta, bool tb, int64_t r, int64_t c, int64_t m, int64_t n, int64_t k,
                 const std::vector<float>& a, const std::vector<float>& b) {
  double acc = 0;
  for (int64_t i = 0; i < k; ++i) {
    acc += double(ta ? a[i * m + r] : a[r * k + i]) * double(tb ? b[c * k + i] : b[i * n + c]);
  }
  return acc;
}

// Every transpose: the whole product is right, and blocks of rows and of
// columns computed separately have the whole product's bits.
TEST(OneThreadSgemmTest, WholeAndBlocksForEveryTranspose) {
  const int64_t m = 40, n = 48, k = 300;
  const std::vector<float> a = Values(m * k, 0), b = Values(k * n, 3);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const int64_t lda = ta ? m : k, ldb = tb ? k : n;
      std::vector<float> whole(m * n, -1.f);
      ASSERT_TRUE(Sgemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, whole.data(), n))
          << "ta=" << ta << " tb=" << tb;
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t c = 0; c < n; ++c) {
          const double want = Reference(ta, tb, r, c, m, n, k, a, b);
          ASSERT_NEAR(whole[r * n + c], want, 1e-4 * (1 + std::fabs(want)))
              << "ta=" << ta << " tb=" << tb << " at " << r << "," << c;
        }
      }
      std::vector<float> byRows(m * n, -1.f), byCols(m * n, -1.f);
      ASSERT_TRUE(SgemmBlock(ta, tb, 0, 17, 0, n, k, a.data(), lda, b.data(), ldb,
                             byRows.data(), n));
      ASSERT_TRUE(SgemmBlock(ta, tb, 17, m - 17, 0, n, k, a.data(), lda, b.data(), ldb,
                             byRows.data(), n));
      ASSERT_TRUE(SgemmBlock(ta, tb, 0, m, 0, 16, k, a.data(), lda, b.data(), ldb,
                             byCols.data(), n));
      ASSERT_TRUE(SgemmBlock(ta, tb, 0, m, 16, n - 16, k, a.data(), lda, b.data(), ldb,
                             byCols.data(), n));
      EXPECT_EQ(byRows, whole) << "ta=" << ta << " tb=" << tb;
      EXPECT_EQ(byCols, whole) << "ta=" << ta << " tb=" << tb;
    }
  }
}

// c += alpha op(a) op(b) (a gradient-descent step taken inside the
// product), every transpose: right values, the whole product's bits in
// row and column blocks, and a refused call leaves c alone.
TEST(OneThreadSgemmTest, ScaledAddWholeAndBlocksForEveryTranspose) {
  const int64_t m = 40, n = 48, k = 32;
  const float alpha = -0.05f;
  const std::vector<float> a = Values(m * k, 0), b = Values(k * n, 3), c0 = Values(m * n, 5);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const int64_t lda = ta ? m : k, ldb = tb ? k : n;
      std::vector<float> whole = c0;
      ASSERT_TRUE(SgemmBlockScaledAdd(ta, tb, 0, m, 0, n, k, alpha, a.data(), lda, b.data(),
                                      ldb, whole.data(), n))
          << "ta=" << ta << " tb=" << tb;
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t c = 0; c < n; ++c) {
          const double want = c0[r * n + c] + alpha * Reference(ta, tb, r, c, m, n, k, a, b);
          ASSERT_NEAR(whole[r * n + c], want, 1e-5 * (1 + std::fabs(want)))
              << "ta=" << ta << " tb=" << tb << " at " << r << "," << c;
        }
      }
      std::vector<float> byRows = c0, byCols = c0;
      ASSERT_TRUE(SgemmBlockScaledAdd(ta, tb, 0, 17, 0, n, k, alpha, a.data(), lda, b.data(),
                                      ldb, byRows.data(), n))
          << "rows block, ta=" << ta << " tb=" << tb;
      ASSERT_TRUE(SgemmBlockScaledAdd(ta, tb, 17, m - 17, 0, n, k, alpha, a.data(), lda,
                                      b.data(), ldb, byRows.data(), n))
          << "rows block, ta=" << ta << " tb=" << tb;
      ASSERT_TRUE(SgemmBlockScaledAdd(ta, tb, 0, m, 0, 16, k, alpha, a.data(), lda, b.data(),
                                      ldb, byCols.data(), n))
          << "columns block, ta=" << ta << " tb=" << tb;
      ASSERT_TRUE(SgemmBlockScaledAdd(ta, tb, 0, m, 16, n - 16, k, alpha, a.data(), lda,
                                      b.data(), ldb, byCols.data(), n))
          << "columns block, ta=" << ta << " tb=" << tb;
      EXPECT_EQ(byRows, whole) << "ta=" << ta << " tb=" << tb;
      EXPECT_EQ(byCols, whole) << "ta=" << ta << " tb=" << tb;
    }
  }
  std::vector<float> c = c0;
  EXPECT_FALSE(SgemmBlockScaledAdd(false, false, 0, m, 0, n, k, alpha, nullptr, k, b.data(), n,
                                   c.data(), n));
  EXPECT_FALSE(SgemmBlockScaledAdd(false, false, 0, m, 0, n, k, alpha, a.data(), k, b.data(), n,
                                   c.data(), n - 1))
      << "ldc shorter than a row of c";
  EXPECT_FALSE(SgemmBlockScaledAdd(false, false, -1, m, 0, n, k, alpha, a.data(), k, b.data(), n,
                                   c.data(), n))
      << "a negative first row";
  EXPECT_FALSE(SgemmBlockScaledAdd(false, false, 0, m, 0, n, -k, alpha, a.data(), k, b.data(), n,
                                   c.data(), n))
      << "a negative depth";
  EXPECT_TRUE(SgemmBlockScaledAdd(false, false, 0, 0, 0, n, k, alpha, a.data(), k, b.data(), n,
                                  c.data(), n))
      << "no rows: nothing to do";
  EXPECT_EQ(c, c0);
}

// Arguments oneDNN would read or write out of bounds with are refused
// before it is called, and the output is left alone; empty products are
// done at once.
TEST(OneThreadSgemmTest, BadArgumentsAreRefusedWithoutTouchingTheOutput) {
  const std::vector<float> a = Values(6, 0), b = Values(6, 1);
  std::vector<float> c(4, 7.f);
  const std::vector<float> untouched = c;
  EXPECT_FALSE(Sgemm(false, false, -1, 2, 3, a.data(), 3, b.data(), 2, c.data(), 2));
  EXPECT_FALSE(Sgemm(false, false, 2, 2, -3, a.data(), 3, b.data(), 2, c.data(), 2));
  EXPECT_FALSE(Sgemm(false, false, 2, 2, 3, a.data(), 2, b.data(), 2, c.data(), 2))
      << "lda shorter than a row of a";
  EXPECT_FALSE(Sgemm(false, false, 2, 2, 3, a.data(), 3, b.data(), 1, c.data(), 2));
  EXPECT_FALSE(Sgemm(false, false, 2, 2, 3, a.data(), 3, b.data(), 2, c.data(), 1));
  EXPECT_FALSE(Sgemm(false, false, 2, 2, 3, nullptr, 3, b.data(), 2, c.data(), 2));
  EXPECT_FALSE(Sgemm(false, false, 2, 2, 3, a.data(), 3, b.data(), 2, nullptr, 2));
  EXPECT_FALSE(SgemmBlock(false, false, -1, 1, 0, 2, 3, a.data(), 3, b.data(), 2, c.data(), 2));
  EXPECT_FALSE(SgemmBlock(false, false, 0, 2, 0, 2, 3, nullptr, 3, b.data(), 2, c.data(), 2));
  EXPECT_EQ(c, untouched);
  EXPECT_TRUE(Sgemm(false, false, 0, 2, 3, nullptr, 3, nullptr, 2, nullptr, 2));
  EXPECT_TRUE(SgemmBlock(false, false, 0, 0, 0, 2, 3, a.data(), 3, b.data(), 2, c.data(), 2));
  EXPECT_EQ(c, untouched);
}

TEST(OneThreadSgemmTest, FasterThanEigenRule) {
  EXPECT_TRUE(FasterThanEigen(32, 256, 784));
  EXPECT_FALSE(FasterThanEigen(32, 10, 128)) << "10 output columns";
  EXPECT_FALSE(FasterThanEigen(32, 16, 32)) << "16K multiply-adds";
  EXPECT_TRUE(FasterThanEigen(32, 32, 32)) << "32K multiply-adds";
}

}  // namespace
}  // namespace dnnl_one_thread
