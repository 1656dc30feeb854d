// Contest: runs the contestants of one benchmark side by side in one
// process, and prints their speeds, the ratios against the peers measured
// in the same run, and the checks (numbers every contestant must agree on,
// or the benchmark compares different computations and is void).
//
// A contestant is one function: it does its setup and any warm-up outside
// the timed region, then times only its loop of `steps` steps, and reports
// what it computed.
//
//   Contest contest("infer_mlp", Metric::kStepsPerSecond);
//   contest.Add({"libtorch", /*peer=*/true, [&](int64_t steps) {
//                  return TorchInferMlp(weights, data.train, 32, steps);
//                }});
//   contest.Add({"eigen", /*peer=*/true, RunEigen});
//   std::vector<ContestResult> results = contest.Run(options);
//   std::cout << FormatContest(contest, results);
//   return AllAgree(results).ok() ? 0 : 1;
#ifndef TOOLS_BENCH_CONTEST_H_
#define TOOLS_BENCH_CONTEST_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tfipu_bench {

// A number a contestant computed (a mean logit, a final loss, ...). Two
// contestants agree on it when their values differ by at most the larger
// of their tolerances.
struct Check {
  std::string name;
  double value = 0;
  double tolerance = 0;
};

struct Outcome {
  int64_t steps = 0;     // steps (or calls) in the timed loop
  double seconds = 0;    // wall time of the timed loop only
  std::vector<Check> checks;
  std::string note;      // how it ran: threads, BLAS, simulated time, ...
};

using ContestantFn = std::function<absl::StatusOr<Outcome>(int64_t steps)>;

struct Contestant {
  std::string name;
  bool peer = false;  // every contestant's ratio to each peer is printed
  ContestantFn run;
  // Contestants (not peers) this one's note compares its speed with, e.g.
  // the same training on one IPU: "0.92x tfipu-ipu-loop".
  std::vector<std::string> relative_to = {};
  // Rows of the same computation must agree on their checks (AllAgree); a
  // row that trains differently on purpose (e.g. fewer, larger updates)
  // names its own computation and is checked against the rows of that one.
  std::string computation = {};
};

enum class Metric {
  kStepsPerSecond,  // higher is better; ratio = mine / peer's
  kMicrosPerCall,   // lower is better; ratio = mine / peer's
};

struct ContestOptions {
  int64_t steps = 0;  // per timed run
  int repeats = 3;    // timed runs per contestant; the median is reported
  // Run only the contestants with these names (all when empty).
  std::vector<std::string> only;
};

struct ContestResult {
  std::string name;
  bool peer = false;
  std::vector<std::string> relative_to;  // as the contestant's
  std::string computation;               // as the contestant's
  absl::Status status;           // a failed contestant is reported, not fatal
  std::vector<double> seconds;   // per repeat
  Outcome median;                // the repeat with the median time
};

// The machine's limit a benchmark is measured against: the best
// single-precision GEMM rate measured in the same run (gemm_peak.h).
struct GemmPeak {
  double gflops = 0;  // 0: not measured
  std::string how;    // "OpenBLAS (libtorch's at::mm), n = 1024, 2 threads"
};

class Contest {
 public:
  Contest(std::string title, Metric metric)
      : title_(std::move(title)), metric_(metric) {}
  void Add(Contestant c) { contestants_.push_back(std::move(c)); }
  // The floating-point operations of one step (steps/s contests): each
  // contestant's GFLOP/s is printed, and with a peak its share of it.
  void SetWork(double flops_per_step) { flops_per_step_ = flops_per_step; }
  void SetPeak(GemmPeak peak) { peak_ = std::move(peak); }
  double flops_per_step() const { return flops_per_step_; }
  const GemmPeak& peak() const { return peak_; }

  // Runs every selected contestant `repeats` times, round robin (all first
  // runs, then all second runs, ...), printing progress on stderr.
  std::vector<ContestResult> Run(const ContestOptions& options) const;

  const std::string& title() const { return title_; }
  Metric metric() const { return metric_; }

 private:
  std::string title_;
  Metric metric_;
  std::vector<Contestant> contestants_;
  double flops_per_step_ = 0;
  GemmPeak peak_;
};

// The speed of a result in the metric's unit (steps/s or microseconds).
double MetricValue(Metric metric, const Outcome& o);
const char* MetricUnit(Metric metric);

// The results as a Markdown table: contestant, speed, one ratio column per
// peer, with the contest's work GFLOP/s and with its peak the share of it,
// the checks, and the notes (opening with the ratios to the contestants a
// row is relative_to, when they ran); the peak on a line before the table.
std::string FormatContest(const Contest& contest,
                          const std::vector<ContestResult>& results);

// OK when every contestant ran and agrees with the first successful one of
// its computation on every check both report; otherwise an error listing
// each disagreement and each failed row (headed as a disagreement when
// there is one, as a failure otherwise).
absl::Status AllAgree(const std::vector<ContestResult>& results);

// What every benchmark's main ends with: runs the contest, prints its table
// on stdout, then whether the contestants agree and the load at the end.
// The process's exit code: 1 when they disagree (the comparison is void)
// or a contestant failed.
int RunAndReport(const Contest& contest, const ContestOptions& options);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_CONTEST_H_
