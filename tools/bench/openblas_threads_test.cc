#include "tools/bench/openblas_threads.h"

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

// This test links no BLAS: both calls say so instead of failing.
TEST(OpenBlasThreadsTest, WithoutOpenBlasNothingIsSetAndTheCountIsUnknown) {
  EXPECT_FALSE(SetOpenBlasThreads(1));
  EXPECT_EQ(OpenBlasThreads(), -1);
}

}  // namespace
}  // namespace tfipu_bench
