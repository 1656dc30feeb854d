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

// Tasks reach a polling worker through its slot and the others through the
// queue; with workers that poll for 1 us, they keep falling asleep between
// bursts, so both hand-overs race with the workers giving up their slots.
// Every task runs once, and none is stranded.
TEST(SpinningThreadPoolTest, TasksFromManyThreadsRunOnceWhileWorkersSpinAndSleep) {
  SpinningThreadPool pool(2, 1);
  constexpr int kSchedulers = 4, kBursts = 200, kPerBurst = 5;
  constexpr int kTotal = kSchedulers * kBursts * kPerBurst;
  std::vector<std::atomic<int>> runs(kTotal);
  std::atomic<int> done{0};
  absl::Notification all;
  std::vector<std::thread> schedulers;
  for (int t = 0; t < kSchedulers; ++t) {
    schedulers.emplace_back([&, t] {
      for (int b = 0; b < kBursts; ++b) {
        for (int k = 0; k < kPerBurst; ++k) {
          const int id = (t * kBursts + b) * kPerBurst + k;
          pool.Schedule([&, id] {
            runs[id].fetch_add(1);
            if (done.fetch_add(1) + 1 == kTotal) all.Notify();
          });
        }
        if (b % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    });
  }
  for (std::thread& t : schedulers) t.join();
  ASSERT_TRUE(all.WaitForNotificationWithTimeout(absl::Seconds(60)))
      << done.load() << " of " << kTotal << " tasks ran";
  for (int id = 0; id < kTotal; ++id) EXPECT_EQ(runs[id].load(), 1) << "task " << id;
}

TEST(SpinningThreadPoolTest, AnEmptyTaskIsIgnored) {
  SpinningThreadPool pool(1, 100);
  pool.Schedule(std::function<void()>());
  absl::Notification ran;
  pool.Schedule([&] { ran.Notify(); });
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(60)));
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
