#include "tools/bench/contest.h"

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tfipu_bench {
namespace {

ContestantFn Fixed(double seconds_per_step, double check) {
  return [=](int64_t steps) -> absl::StatusOr<Outcome> {
    Outcome o;
    o.steps = steps;
    o.seconds = seconds_per_step * steps;
    o.checks = {{"loss", check, 1e-3}};
    o.note = "n";
    return o;
  };
}

// A contestant that fails with `status` on every run.
ContestantFn Failing(absl::Status status) {
  return [=](int64_t) -> absl::StatusOr<Outcome> { return status; };
}

TEST(ContestTest, RatiosAgainstEachPeerAndChecks) {
  Contest contest("demo", Metric::kStepsPerSecond);
  contest.Add({"torch", true, Fixed(0.001, 0.5)});
  contest.Add({"mine", false, Fixed(0.0005, 0.5004)});
  ContestOptions options;
  options.steps = 100;
  options.repeats = 3;
  std::vector<ContestResult> results = contest.Run(options);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1].seconds.size(), 3u);
  EXPECT_DOUBLE_EQ(MetricValue(Metric::kStepsPerSecond, results[1].median), 2000);
  const std::string text = FormatContest(contest, results);
  EXPECT_NE(text.find("| contestant | steps/s | vs torch | loss"), std::string::npos) << text;
  EXPECT_NE(text.find("| mine       | 2,000   | 2.00x"), std::string::npos) << text;
  TF_EXPECT_OK(AllAgree(results));
}

// A contestant's note opens with its speed relative to the contestants it
// names, when they ran.
TEST(ContestTest, NotesCompareWithTheNamedContestants) {
  Contest contest("demo", Metric::kStepsPerSecond);
  contest.Add({"one", false, Fixed(0.001, 0.5)});
  contest.Add({"two", false, Fixed(0.004, 0.5), {"one", "absent"}});
  ContestOptions options;
  options.steps = 100;
  options.repeats = 1;
  std::vector<ContestResult> results = contest.Run(options);
  const std::string text = FormatContest(contest, results);
  EXPECT_NE(text.find("| two        | 250.0   | 0.5  | 0.25x one; n |"), std::string::npos) << text;
  options.only = {"two"};
  const std::string alone = FormatContest(contest, contest.Run(options));
  EXPECT_NE(alone.find("| two        | 250.0   | 0.5  | n    |"), std::string::npos) << alone;
}

// With the work of a step and the machine's peak, each row shows its
// GFLOP/s and its share of the peak; a failed row keeps the columns.
TEST(ContestTest, ThroughputAndShareOfThePeak) {
  Contest contest("demo", Metric::kStepsPerSecond);
  contest.Add({"torch", true, Fixed(0.001, 0.5)});   // 1,000 steps/s
  contest.Add({"mine", false, Fixed(0.0005, 0.5)});  // 2,000 steps/s
  contest.Add({"broken", false, Failing(absl::InternalError("boom"))});
  contest.SetWork(32e6);
  contest.SetPeak({200, "Eigen, n = 1024, 2 threads"});
  ContestOptions options;
  options.steps = 10;
  options.repeats = 1;
  const std::string text = FormatContest(contest, contest.Run(options));
  EXPECT_NE(text.find("Work: 32.00 MFLOP per step (the matrix products). The machine's "
                      "single-precision GEMM peak, measured in this run: 200.0 GFLOP/s "
                      "(Eigen, n = 1024, 2 threads)."),
            std::string::npos) << text;
  EXPECT_NE(text.find("| contestant | steps/s | vs torch | GFLOP/s | of peak | loss"),
            std::string::npos) << text;
  EXPECT_NE(text.find("| torch      | 1,000   | 1.00x    | 32.0    | 16%     | 0.5"),
            std::string::npos) << text;
  EXPECT_NE(text.find("| mine       | 2,000   | 2.00x    | 64.0    | 32%     | 0.5"),
            std::string::npos) << text;
  EXPECT_NE(text.find("| broken     | failed  |          |         |         |      | boom"),
            std::string::npos) << text;
  // Without a peak: the throughput only.
  contest.SetPeak({});
  const std::string plain = FormatContest(contest, contest.Run(options));
  EXPECT_NE(plain.find("| contestant | steps/s | vs torch | GFLOP/s | loss"), std::string::npos)
      << plain;
  EXPECT_EQ(plain.find("of peak"), std::string::npos) << plain;
}

TEST(ContestTest, LatencyRatioIsTimeOverTime) {
  Contest contest("calls", Metric::kMicrosPerCall);
  contest.Add({"torch", true, Fixed(3e-6, 1)});
  contest.Add({"mine", false, Fixed(6e-6, 1)});
  ContestOptions options;
  options.steps = 1000;
  options.repeats = 1;
  std::vector<ContestResult> results = contest.Run(options);
  EXPECT_NEAR(MetricValue(Metric::kMicrosPerCall, results[1].median), 6.0, 1e-9);
  EXPECT_NE(FormatContest(contest, results).find("2.00x"), std::string::npos);
}

TEST(ContestTest, DisagreementAndFailureAreReported) {
  Contest contest("demo", Metric::kStepsPerSecond);
  contest.Add({"torch", true, Fixed(0.001, 0.5)});
  contest.Add({"wrong", false, Fixed(0.001, 0.7)});
  contest.Add({"broken", false, Failing(absl::InternalError("boom"))});
  ContestOptions options;
  options.steps = 10;
  options.repeats = 2;
  std::vector<ContestResult> results = contest.Run(options);
  absl::Status s = AllAgree(results);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("wrong: loss = 0.7"), std::string::npos) << s;
  EXPECT_NE(std::string(s.message()).find("broken failed: boom"), std::string::npos) << s;
  EXPECT_NE(FormatContest(contest, results).find("| broken     | failed"),
            std::string::npos);
}

// A row that computes something else on purpose is checked against the
// rows of its own computation, not against the first row.
TEST(ContestTest, RowsAgreeWithinTheirComputation) {
  Contest contest("demo", Metric::kStepsPerSecond);
  contest.Add({"torch", true, Fixed(0.001, 0.5)});
  contest.Add({"fewer-updates", false, Fixed(0.001, 0.7), {}, "fewer updates"});
  contest.Add({"fewer-updates-too", false, Fixed(0.001, 0.7), {}, "fewer updates"});
  ContestOptions options;
  options.steps = 10;
  options.repeats = 1;
  TF_EXPECT_OK(AllAgree(contest.Run(options)));

  contest.Add({"fewer-updates-wrong", false, Fixed(0.001, 0.9), {}, "fewer updates"});
  absl::Status s = AllAgree(contest.Run(options));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find(
                "fewer-updates-wrong: loss = 0.9, but fewer-updates computed 0.7"),
            std::string::npos)
      << s;
}

// A failure alone is reported as a failure, not as a disagreement.
TEST(ContestTest, AFailureAloneIsNotCalledADisagreement) {
  Contest contest("demo", Metric::kStepsPerSecond);
  contest.Add({"torch", true, Fixed(0.001, 0.5)});
  contest.Add({"broken", false, Failing(absl::InvalidArgumentError("too few steps"))});
  ContestOptions options;
  options.steps = 10;
  options.repeats = 1;
  absl::Status s = AllAgree(contest.Run(options));
  EXPECT_EQ(s.message(),
            "a contestant failed (its row is missing from the comparison):\n"
            "  broken failed: too few steps");
}

TEST(ContestTest, RepeatsRoundRobinAndReportsTheMedian) {
  std::vector<std::string> calls;
  auto fn = [&calls](std::string name, std::vector<double> seconds) {
    return [&calls, name, seconds, k = 0](int64_t steps) mutable -> absl::StatusOr<Outcome> {
      calls.push_back(name);
      Outcome o;
      o.steps = steps;
      o.seconds = seconds[k++];
      return o;
    };
  };
  Contest contest("demo", Metric::kStepsPerSecond);
  contest.Add({"a", true, fn("a", {3, 1, 2})});
  contest.Add({"b", false, fn("b", {1, 1, 1})});
  ContestOptions options;
  options.steps = 1;
  options.repeats = 3;
  std::vector<ContestResult> results = contest.Run(options);
  EXPECT_EQ(calls, (std::vector<std::string>{"a", "b", "a", "b", "a", "b"}));
  EXPECT_EQ(results[0].median.seconds, 2);
}

TEST(ContestTest, OnlyRunsTheNamedContestants) {
  Contest contest("demo", Metric::kStepsPerSecond);
  contest.Add({"a", true, Fixed(0.001, 1)});
  contest.Add({"b", false, Fixed(0.001, 1)});
  ContestOptions options;
  options.steps = 1;
  options.only = {"b"};
  std::vector<ContestResult> results = contest.Run(options);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].name, "b");
}

}  // namespace
}  // namespace tfipu_bench
