#include "poplar_sim/lane_threads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "poplar_sim/host_threads.h"

namespace poplar_sim {
namespace internal {
namespace {

// A dependency graph as runGraph takes it, from each task's waits.
struct TaskGraph {
  explicit TaskGraph(const std::vector<std::vector<unsigned>>& waits)
      : dependents(waits.size()), deps(waits.size()) {
    for (unsigned t = 0; t < waits.size(); ++t) {
      for (unsigned w : waits[t]) dependents[w].push_back(t);
      deps[t] = static_cast<unsigned>(waits[t].size());
    }
  }
  std::vector<std::vector<unsigned>> dependents;
  std::vector<unsigned> deps;
};

TEST(LaneThreadsTest, EachTaskRunsOnceAfterWhatItWaitsFor) {
  // 60 tasks, each waiting for up to three earlier ones (a fixed pattern),
  // some splitting work with parallelFor.
  std::vector<std::vector<unsigned>> waits(60);
  for (unsigned t = 1; t < 60; ++t) {
    for (unsigned k : {(t * 7 + 3) % t, (t * 13 + 5) % t, t - 1}) {
      if (k < t && (t % 3 != 0 || k != t - 1)) waits[t].push_back(k);
    }
    std::sort(waits[t].begin(), waits[t].end());
    waits[t].erase(std::unique(waits[t].begin(), waits[t].end()), waits[t].end());
  }
  const TaskGraph g(waits);
  for (unsigned n : {1u, 2u, 3u}) {
    SpawnedHostThreads outer(n);
    LaneThreads threads(outer);
    std::atomic<unsigned> clock{0};
    std::vector<std::atomic<unsigned>> runs(60), started(60), finished(60);
    std::vector<std::atomic<unsigned>> parts(60 * 5);
    threads.runGraph(g.dependents, g.deps, [&](unsigned t) {
      started[t] = ++clock;
      ++runs[t];
      if (t % 4 == 0) threads.parallelFor(5, [&](unsigned i) { ++parts[t * 5 + i]; });
      finished[t] = ++clock;
      return true;
    });
    for (unsigned t = 0; t < 60; ++t) {
      EXPECT_EQ(runs[t].load(), 1u) << "task " << t << ", " << n << " threads";
      for (unsigned w : waits[t]) {
        EXPECT_LT(finished[w].load(), started[t].load())
            << "task " << t << " started before task " << w << " it waits for had finished";
      }
      for (unsigned i = 0; i < 5; ++i) {
        EXPECT_EQ(parts[t * 5 + i].load(), t % 4 == 0 ? 1u : 0u) << "task " << t << " part " << i;
      }
    }
  }
}

TEST(LaneThreadsTest, TasksThatWaitForNothingRunSideBySide) {
  // Task 0 waits (up to 10 s) until task 1, later in index order, runs.
  SpawnedHostThreads outer(2);
  LaneThreads threads(outer);
  std::atomic<bool> oneRan{false}, met{false};
  const TaskGraph g({{}, {}, {0, 1}});
  threads.runGraph(g.dependents, g.deps, [&](unsigned t) {
    if (t == 0) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!oneRan.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      met = oneRan.load();
    }
    if (t == 1) oneRan = true;
    return true;
  });
  EXPECT_TRUE(met.load()) << "task 0 waited 10 s for task 1: they did not run side by side";
}

TEST(LaneThreadsTest, AFailedTaskStopsTheTasksAfterIt) {
  // Task 1 fails while task 0 (before it) is still running: 0 finishes,
  // 2 (ready, after 1) and 3 (waiting for 1) never start, and 4 (waiting
  // for 3, which never runs) neither: runGraph returns all the same.
  for (unsigned n : {1u, 2u}) {
    SpawnedHostThreads outer(n);
    LaneThreads threads(outer);
    std::vector<std::atomic<unsigned>> runs(5);
    const TaskGraph g({{}, {}, {}, {1}, {3}});
    threads.runGraph(g.dependents, g.deps, [&](unsigned t) {
      ++runs[t];
      if (t == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return t != 1;
    });
    EXPECT_EQ(runs[0].load(), 1u) << n << " threads";
    EXPECT_EQ(runs[1].load(), 1u) << n << " threads";
    EXPECT_EQ(runs[2].load(), 0u) << n << " threads";
    EXPECT_EQ(runs[3].load(), 0u) << n << " threads";
    EXPECT_EQ(runs[4].load(), 0u) << n << " threads";
  }
}

TEST(LaneThreadsTest, AnEmptyGraphReturns) {
  SpawnedHostThreads outer(2);
  LaneThreads threads(outer);
  threads.runGraph({}, {}, [](unsigned) { return true; });
  SUCCEED();
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
