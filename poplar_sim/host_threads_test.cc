#include "poplar_sim/host_threads.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace poplar_sim {
namespace {

TEST(SpawnedHostThreadsTest, RunsEveryIndexOnceOnSeveralThreads) {
  SpawnedHostThreads threads(3);
  EXPECT_EQ(threads.numThreads(), 3u);
  std::vector<std::atomic<int>> runs(5);
  std::mutex mu;
  std::set<std::thread::id> ids;
  threads.parallelFor(5, [&](unsigned i) {
    runs[i].fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  // The caller runs shard 0; the others run on threads of their own.
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 1u);
}

TEST(SpawnedHostThreadsTest, ZeroThreadsMeansOne) {
  EXPECT_EQ(SpawnedHostThreads(0).numThreads(), 1u);
}

std::vector<std::pair<size_t, size_t>> Ranges(HostThreads* threads, size_t extent,
                                              size_t grain = 1) {
  std::mutex mu;
  std::vector<std::pair<size_t, size_t>> out;
  parallelRanges(
      threads, extent,
      [&](size_t b, size_t e) {
        std::lock_guard<std::mutex> lock(mu);
        out.emplace_back(b, e);
      },
      grain);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ParallelRangesTest, SplitsIntoNearlyEqualContiguousRanges) {
  SpawnedHostThreads two(2), four(4);
  using R = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(Ranges(&two, 10), (R{{0, 5}, {5, 10}}));
  EXPECT_EQ(Ranges(&four, 10), (R{{0, 3}, {3, 5}, {5, 8}, {8, 10}}));
  // Never more ranges than elements, never an empty one.
  EXPECT_EQ(Ranges(&four, 3), (R{{0, 1}, {1, 2}, {2, 3}}));
}

TEST(ParallelRangesTest, BoundariesAreMultiplesOfTheGrain) {
  SpawnedHostThreads two(2), three(3);
  using R = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(Ranges(&two, 130, 48), (R{{0, 48}, {48, 130}}));
  EXPECT_EQ(Ranges(&two, 784, 48), (R{{0, 384}, {384, 784}}));
  EXPECT_EQ(Ranges(&two, 256, 48), (R{{0, 144}, {144, 256}}));
  EXPECT_EQ(Ranges(&three, 200, 48), (R{{0, 48}, {48, 144}, {144, 200}}));
  // Less than two grains: not split.
  EXPECT_EQ(Ranges(&two, 95, 48), (R{{0, 95}}));
}

TEST(ParallelRangesTest, WithoutThreadsRunsOneRangeOnTheCaller) {
  using R = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(Ranges(nullptr, 7), (R{{0, 7}}));
  SpawnedHostThreads one(1);
  EXPECT_EQ(Ranges(&one, 7), (R{{0, 7}}));
  EXPECT_EQ(Ranges(nullptr, 0), (R{{0, 0}}));
}

}  // namespace
}  // namespace poplar_sim
