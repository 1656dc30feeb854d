#include "tensorflow_ipu/core/parallel_shards.h"

#include <atomic>
#include <vector>

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

}  // namespace
}  // namespace tensorflow_ipu
