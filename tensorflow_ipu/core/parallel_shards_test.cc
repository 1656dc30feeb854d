#include "tensorflow_ipu/core/parallel_shards.h"

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace {

TEST(RunShardsTest, RunsEachShardExactlyOnce) {
  Eigen::ThreadPool pool(3);
  Eigen::ThreadPoolDevice device(&pool, 3);
  for (int n : {0, 1, 2, 7, 64}) {
    std::vector<std::atomic<int>> runs(n);
    RunShards(device, n, [&](int i) { runs[i].fetch_add(1); });
    for (int i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(RunShardsTest, OneThreadRunsOnTheCaller) {
  Eigen::ThreadPool pool(1);
  Eigen::ThreadPoolDevice device(&pool, 1);
  std::vector<int> order;
  RunShards(device, 4, [&](int i) { order.push_back(i); });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

TEST(RunShardsTest, FinishesWhenEveryPoolThreadIsBlocked) {
  // The pool's only thread is stuck until the shards are done: a caller
  // that waited for its helper task to start would never return.
  Eigen::ThreadPool pool(1);
  Eigen::ThreadPoolDevice device(&pool, 2);
  absl::Notification shards_done, blocker_started;
  pool.Schedule([&] {
    blocker_started.Notify();
    shards_done.WaitForNotification();
  });
  blocker_started.WaitForNotification();
  std::atomic<int> sum{0};
  RunShards(device, 2, [&](int i) { sum += i + 1; });
  EXPECT_EQ(sum.load(), 3);
  shards_done.Notify();
}

TEST(RunShardsTest, NestedFromPoolThreadsDoesNotDeadlock) {
  // Both pool threads run a sharded kernel at once, as the executor does
  // with two expensive nodes.
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  std::atomic<int> total{0};
  absl::Notification a_done, b_done;
  pool.Schedule([&] {
    RunShards(device, 8, [&](int) { total += 1; });
    a_done.Notify();
  });
  pool.Schedule([&] {
    RunShards(device, 8, [&](int) { total += 1; });
    b_done.Notify();
  });
  a_done.WaitForNotification();
  b_done.WaitForNotification();
  EXPECT_EQ(total.load(), 16);
}

std::vector<std::pair<int64_t, int64_t>> Ranges(const Eigen::ThreadPoolDevice& device,
                                                int64_t extent, int64_t grain, int shards) {
  absl::Mutex mu;
  std::vector<std::pair<int64_t, int64_t>> out;
  RunRanges(device, extent, grain, shards, [&](int64_t b, int64_t e) {
    absl::MutexLock lock(&mu);
    out.emplace_back(b, e);
  });
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RunRangesTest, BoundariesAreTheGrainMultiplesNearestAnEvenSplit) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 3);
  using R = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Ranges(device, 256, 48, 2), (R{{0, 144}, {144, 256}}));
  EXPECT_EQ(Ranges(device, 784, 48, 2), (R{{0, 384}, {384, 784}}));
  EXPECT_EQ(Ranges(device, 200, 48, 3), (R{{0, 48}, {48, 144}, {144, 200}}));
  // Fewer than two whole grains, or one shard: one range.
  EXPECT_EQ(Ranges(device, 95, 48, 2), (R{{0, 95}}));
  EXPECT_EQ(Ranges(device, 1000, 16, 1), (R{{0, 1000}}));
}

TEST(EvaluateOnPoolTest, FromAWorkerOfItsOwnPoolItRunsInline) {
  // Eigen's parallel evaluation from the pool's only worker would wait for
  // a task queued behind itself, forever.
  Eigen::ThreadPool pool(1);
  Eigen::ThreadPoolDevice device(&pool, 2);
  Eigen::Tensor<float, 1> a(1 << 20), b(1 << 20), c(1 << 20);
  a.setConstant(3.f);
  absl::Notification done;
  pool.Schedule([&] {
    EvaluateOnPool(device, b, a * a + 1.f);
    done.Notify();
  });
  done.WaitForNotification();
  // From a thread outside the pool it evaluates on the pool.
  EvaluateOnPool(device, c, a - 1.f);
  for (int i = 0; i < (1 << 20); i += 4099) {
    EXPECT_EQ(b(i), 10.f);
    EXPECT_EQ(c(i), 2.f);
  }
}

}  // namespace
}  // namespace tensorflow_ipu
