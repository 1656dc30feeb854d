#include "tools/ipu_saved_model_cli/convert/pipeline/split.h"

#include <algorithm>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;

std::vector<int> Greedy(const std::vector<int64_t>& costs, int groups) {
  absl::StatusOr<std::vector<int>> sizes = GreedySplit(costs, groups);
  EXPECT_TRUE(sizes.ok()) << sizes.status();
  return sizes.ok() ? *sizes : std::vector<int>{};
}

std::vector<int> Exact(const std::vector<int64_t>& costs, int groups) {
  absl::StatusOr<std::vector<int>> sizes = ExactSplit(costs, groups);
  EXPECT_TRUE(sizes.ok()) << sizes.status();
  return sizes.ok() ? *sizes : std::vector<int>{};
}

int64_t Slowest(const std::vector<int64_t>& costs, const std::vector<int>& sizes) {
  std::vector<int64_t> stages = StageCosts(costs, sizes);
  return *std::max_element(stages.begin(), stages.end());
}

// The original's find_opt on the arrays of its own tests, worked by hand
// with its score (prefix - rest/g)^2 - i.
TEST(GreedySplitTest, ReproducesTheOriginalsChoices) {
  // g=2, mean 10: i=4 scores 0-4 = -4, i=5 (14-10)^2-5 = 11.
  EXPECT_THAT(Greedy({1, 2, 3, 4, 4, 3, 2, 1}, 2), ElementsAre(4, 4));
  EXPECT_THAT(Greedy({840, 570, 314, 294, 483, 828, 607, 139, 236, 440}, 2), ElementsAre(5, 5));
  EXPECT_THAT(
      Greedy({1000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1200, 1, 1, 1, 1, 1, 1, 34, 56, 74, 39, 26, 49},
             4),
      ElementsAre(11, 1, 9, 3));
  EXPECT_THAT(Greedy({1, 1, 2, 4, 90, 0, 45, 45}, 4), ElementsAre(4, 2, 1, 1));
  EXPECT_THAT(Greedy({1, 2, 3, 4, 5, 6, 90, 110, 100, 120, 100, 100, 100, 100}, 8),
              ElementsAre(7, 1, 1, 1, 1, 1, 1, 1));
  EXPECT_THAT(Greedy({20, 40, 30, 10, 10, 10, 10, 10, 50, 70, 30}, 8),
              ElementsAre(1, 1, 2, 3, 1, 1, 1, 1));
}

// The "- i" term: among equal distances the longer first chunk wins
// (all-ones, g=2, mean 4: i=4 scores -4, i=5 scores 1-5 = -4, a tie that
// the first solution, i=4, takes; i=3 scores 1-3 = -2).
TEST(GreedySplitTest, TiesTakeTheFirstCut) {
  EXPECT_THAT(Greedy({1, 1, 1, 1, 1, 1, 1, 1}, 2), ElementsAre(4, 4));
  EXPECT_THAT(Greedy({7}, 1), ElementsAre(1));
}

TEST(ExactSplitTest, HandComputedOptima) {
  // [5 3 | 8 | 1 2]: 8, 8, 3. The last stage is as short as the optimum
  // allows: [2] alone would leave [5 3 8 1] for two stages, at best 9.
  EXPECT_THAT(Exact({5, 3, 8, 1, 2}, 3), ElementsAre(2, 1, 2));
  // [1..6 | 7 8] (21, 15) and [1..5 | 6 7 8] (15, 21) are both optimal:
  // the shorter last stage, [7 8], wins the tie.
  EXPECT_THAT(Exact({1, 2, 3, 4, 5, 6, 7, 8}, 2), ElementsAre(6, 2));
  EXPECT_THAT(Exact({1, 2, 3, 4, 5, 6, 7, 8}, 3), ElementsAre(5, 2, 1));
  EXPECT_EQ(Slowest({1, 2, 3, 4, 5, 6, 7, 8}, Exact({1, 2, 3, 4, 5, 6, 7, 8}, 3)), 15);
  EXPECT_THAT(Exact({4, 4, 4, 4}, 4), ElementsAre(1, 1, 1, 1));
  EXPECT_THAT(Exact({0, 0, 0}, 2), ElementsAre(2, 1));
}

// Greedy's slowest stage is strictly worse: it cuts [5 | 3 8 | 1 2]
// (5, 11, 3) because 5 is closest to the mean 19/3 with the "- i" bonus,
// and then cannot recover; the exact split's slowest stage is 8.
TEST(ExactSplitTest, BeatsGreedyWhereGreedyCutsTooEarly) {
  const std::vector<int64_t> costs = {5, 3, 8, 1, 2};
  EXPECT_THAT(Greedy(costs, 3), ElementsAre(1, 2, 2));
  EXPECT_THAT(StageCosts(costs, Greedy(costs, 3)), ElementsAre(5, 11, 3));
  EXPECT_THAT(StageCosts(costs, Exact(costs, 3)), ElementsAre(8, 8, 3));
}

// The smallest possible slowest stage, by trying every split.
int64_t BruteForce(const std::vector<int64_t>& costs, size_t begin, int groups) {
  if (groups == 1) {
    int64_t sum = 0;
    for (size_t i = begin; i < costs.size(); ++i) sum += costs[i];
    return sum;
  }
  int64_t best = -1;
  int64_t first = 0;
  for (size_t end = begin + 1; costs.size() - end >= static_cast<size_t>(groups - 1); ++end) {
    first += costs[end - 1];
    const int64_t worst = std::max(first, BruteForce(costs, end, groups - 1));
    if (best < 0 || worst < best) best = worst;
  }
  return best;
}

TEST(ExactSplitTest, OptimalOnRandomArrays) {
  std::mt19937 rng(20240531);
  for (int trial = 0; trial < 400; ++trial) {
    const int n = std::uniform_int_distribution<int>(1, 10)(rng);
    const int groups = std::uniform_int_distribution<int>(1, n)(rng);
    std::vector<int64_t> costs(n);
    for (int64_t& c : costs) c = std::uniform_int_distribution<int64_t>(0, 1000)(rng);
    const std::vector<int> sizes = Exact(costs, groups);
    ASSERT_EQ(static_cast<int>(sizes.size()), groups);
    int total = 0;
    for (int s : sizes) {
      EXPECT_GT(s, 0);
      total += s;
    }
    EXPECT_EQ(total, n);
    EXPECT_EQ(Slowest(costs, sizes), BruteForce(costs, 0, groups)) << "trial " << trial;
    // Never worse than the greedy split.
    EXPECT_LE(Slowest(costs, sizes), Slowest(costs, Greedy(costs, groups))) << "trial " << trial;
  }
}

TEST(SplitTest, BadArguments) {
  for (auto split : {GreedySplit, ExactSplit}) {
    absl::Status s = split({1, 2}, 3).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(),
              "cannot split 2 nodes into 3 pipeline stages: every stage needs a node; use fewer "
              "stages");
    s = split({1, 2}, 0).status();
    EXPECT_EQ(s.message(), "cannot split into 0 pipeline stages; give at least 1");
    s = split({1, -2}, 1).status();
    EXPECT_EQ(s.message(), "the cost of node 1 is negative (-2)");
    s = split({int64_t{1} << 62, int64_t{1} << 62}, 1).status();
    EXPECT_EQ(s.message(), "the node costs sum to more than 2^63 - 1");
    EXPECT_EQ(split({}, 1).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
