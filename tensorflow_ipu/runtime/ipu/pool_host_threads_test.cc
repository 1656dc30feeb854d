#include "tensorflow_ipu/runtime/ipu/pool_host_threads.h"
#include "unsupported/Eigen/CXX11/Tensor"

#include <atomic>
#include <vector>

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace {

TEST(PoolHostThreadsTest, SplitsOverThePoolsThreads) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  PoolHostThreads threads(device);
  EXPECT_EQ(threads.numThreads(), 2u);
  std::vector<std::atomic<int>> hits(10);
  poplar_sim::parallelRanges(&threads, 10, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) hits[i] += 1;
  });
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
}

}  // namespace
}  // namespace tensorflow_ipu
