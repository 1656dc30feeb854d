#include "tensorflow_ipu/runtime/spinning_thread_pool.h"

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/parallel_shards.h"

namespace tensorflow_ipu {
namespace {

TEST(SpinningThreadPoolTest, RunsEveryTaskOnItsWorkers) {
  SpinningThreadPool pool(2, 100);
  EXPECT_EQ(pool.NumThreads(), 2);
  EXPECT_EQ(pool.CurrentThreadId(), -1);  // not a worker
  std::atomic<int> ran{0};
  std::atomic<int> bad_ids{0};
  absl::Notification all;
  for (int i = 0; i < 1000; ++i) {
    pool.Schedule([&] {
      const int id = pool.CurrentThreadId();
      if (id < 0 || id > 1) bad_ids.fetch_add(1);
      if (ran.fetch_add(1) + 1 == 1000) all.Notify();
    });
  }
  all.WaitForNotification();
  EXPECT_EQ(ran.load(), 1000);
  EXPECT_EQ(bad_ids.load(), 0);
}

TEST(SpinningThreadPoolTest, WakesWorkersThatFellAsleep) {
  // A spin of 0 us: the workers sleep at once, and Schedule must wake them.
  SpinningThreadPool pool(1, 0);
  for (int round = 0; round < 5; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    absl::Notification done;
    pool.Schedule([&] { done.Notify(); });
    done.WaitForNotification();
  }
}

TEST(SpinningThreadPoolTest, DestructorRunsWhatWasScheduled) {
  std::atomic<int> ran{0};
  {
    SpinningThreadPool pool(1, 50);
    for (int i = 0; i < 100; ++i) pool.Schedule([&] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(SpinningThreadPoolTest, BacksAnEigenDeviceForShardedWork) {
  // One worker plus the caller: the layout CpuDevice uses.
  SpinningThreadPool pool(1, 500);
  Eigen::ThreadPoolDevice device(&pool, 2);
  std::vector<std::atomic<int>> hits(64);
  for (int round = 0; round < 100; ++round) {
    RunShards(device, 64, [&](int s) { hits[s].fetch_add(1); });
  }
  for (const auto& h : hits) EXPECT_EQ(h.load(), 100);
  // Eigen's own parallel evaluation runs on it too.
  Eigen::Tensor<float, 1> a(1 << 18), b(1 << 18);
  a.setConstant(2.f);
  b.device(device) = a * a + 1.f;
  for (int i = 0; i < (1 << 18); i += 4099) EXPECT_EQ(b(i), 5.f);
}

}  // namespace
}  // namespace tensorflow_ipu
