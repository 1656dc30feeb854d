#include "tools/bench/contest.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/bench/machine_info.h"
#include "tools/bench/table.h"

namespace tfipu_bench {

std::vector<ContestResult> Contest::Run(const ContestOptions& options) const {
  std::vector<const Contestant*> selected;
  for (const Contestant& c : contestants_) {
    if (options.only.empty() ||
        std::find(options.only.begin(), options.only.end(), c.name) != options.only.end()) {
      selected.push_back(&c);
    }
  }
  std::vector<ContestResult> results(selected.size());
  std::vector<std::vector<Outcome>> outcomes(selected.size());
  for (size_t i = 0; i < selected.size(); ++i) {
    results[i].name = selected[i]->name;
    results[i].peer = selected[i]->peer;
    results[i].relative_to = selected[i]->relative_to;
    results[i].computation = selected[i]->computation;
  }
  // Round robin (repeat k of every contestant before repeat k+1 of any), so
  // that a change of load on a shared machine falls on all of them alike.
  const int repeats = std::max(1, options.repeats);
  for (int k = 0; k < repeats; ++k) {
    for (size_t i = 0; i < selected.size(); ++i) {
      ContestResult& r = results[i];
      if (!r.status.ok()) continue;
      std::cerr << title_ << ": " << r.name << " run " << k + 1 << "/" << repeats
                << " ..." << std::flush;
      absl::StatusOr<Outcome> o = selected[i]->run(options.steps);
      if (!o.ok()) {
        std::cerr << " failed: " << o.status() << "\n";
        r.status = o.status();
        continue;
      }
      std::cerr << " " << FormatNumber(MetricValue(metric_, *o)) << " "
                << MetricUnit(metric_) << "\n";
      r.seconds.push_back(o->seconds);
      outcomes[i].push_back(std::move(*o));
    }
  }
  for (size_t i = 0; i < selected.size(); ++i) {
    std::vector<Outcome>& runs = outcomes[i];
    if (!results[i].status.ok() || runs.empty()) continue;
    std::vector<size_t> order(runs.size());
    for (size_t j = 0; j < order.size(); ++j) order[j] = j;
    std::sort(order.begin(), order.end(), [&runs](size_t a, size_t b) {
      return runs[a].seconds / std::max<int64_t>(runs[a].steps, 1) <
             runs[b].seconds / std::max<int64_t>(runs[b].steps, 1);
    });
    results[i].median = runs[order[order.size() / 2]];
  }
  return results;
}

double MetricValue(Metric metric, const Outcome& o) {
  if (o.seconds <= 0 || o.steps <= 0) return NAN;
  return metric == Metric::kStepsPerSecond ? o.steps / o.seconds
                                           : o.seconds / o.steps * 1e6;
}

const char* MetricUnit(Metric metric) {
  return metric == Metric::kStepsPerSecond ? "steps/s" : "us/call";
}

std::string FormatContest(const Contest& contest,
                          const std::vector<ContestResult>& results) {
  std::vector<const ContestResult*> peers;
  std::vector<std::string> check_names;
  for (const ContestResult& r : results) {
    if (r.peer && r.status.ok()) peers.push_back(&r);
    for (const Check& c : r.median.checks) {
      if (std::find(check_names.begin(), check_names.end(), c.name) ==
          check_names.end()) {
        check_names.push_back(c.name);
      }
    }
  }
  std::vector<std::string> header = {"contestant", MetricUnit(contest.metric())};
  for (const ContestResult* p : peers) header.push_back(absl::StrCat("vs ", p->name));
  // Throughput is only meaningful for steps per second.
  const bool work = contest.flops_per_step() > 0 && contest.metric() == Metric::kStepsPerSecond;
  const bool share = work && contest.peak().gflops > 0;
  if (work) header.push_back("GFLOP/s");
  if (share) header.push_back("of peak");
  for (const std::string& c : check_names) header.push_back(c);
  header.push_back("note");
  Table table(header);
  for (const ContestResult& r : results) {
    std::vector<std::string> row = {r.name};
    if (!r.status.ok()) {
      row.push_back("failed");
      const size_t blanks = peers.size() + check_names.size() + (work ? 1 : 0) + (share ? 1 : 0);
      for (size_t i = 0; i < blanks; ++i) row.push_back("");
      row.push_back(std::string(r.status.message()).substr(0, 160));
      table.AddRow(row);
      continue;
    }
    const double mine = MetricValue(contest.metric(), r.median);
    row.push_back(FormatNumber(mine));
    for (const ContestResult* p : peers) {
      row.push_back(FormatRatio(mine / MetricValue(contest.metric(), p->median)));
    }
    if (work) {
      const double gflops = mine * contest.flops_per_step() / 1e9;
      row.push_back(absl::StrFormat("%.1f", gflops));
      if (share) row.push_back(absl::StrFormat("%.0f%%", 100 * gflops / contest.peak().gflops));
    }
    for (const std::string& name : check_names) {
      std::string cell;
      for (const Check& c : r.median.checks) {
        if (c.name == name) cell = absl::StrFormat("%.6g", c.value);
      }
      row.push_back(cell);
    }
    std::string note;
    for (const std::string& other : r.relative_to) {
      for (const ContestResult& o : results) {
        if (o.name != other || !o.status.ok()) continue;
        absl::StrAppend(&note, FormatRatio(mine / MetricValue(contest.metric(), o.median)), " ",
                        other, "; ");
      }
    }
    row.push_back(note + r.median.note);
    table.AddRow(row);
  }
  std::string out = absl::StrCat("## ", contest.title(), "\n\n");
  if (work) {
    absl::StrAppend(&out, "Work: ", absl::StrFormat("%.2f", contest.flops_per_step() / 1e6),
                    " MFLOP per step (the matrix products).");
    if (share) {
      absl::StrAppend(&out, " The machine's single-precision GEMM peak, measured in this run: ",
                      absl::StrFormat("%.1f", contest.peak().gflops), " GFLOP/s (",
                      contest.peak().how, ").");
    }
    absl::StrAppend(&out, "\n\n");
  }
  absl::StrAppend(&out, table.ToMarkdown());
  if (!peers.empty()) {
    absl::StrAppend(&out, "\nRatios are ", MetricUnit(contest.metric()),
                    " of the row over ", MetricUnit(contest.metric()),
                    " of the peer, measured in this run",
                    contest.metric() == Metric::kStepsPerSecond
                        ? " (above 1x: faster than the peer).\n"
                        : " (below 1x: cheaper than the peer).\n");
  }
  return out;
}

absl::Status AllAgree(const std::vector<ContestResult>& results) {
  std::vector<std::string> problems;
  bool disagreement = false;
  // The first successful row of each computation.
  std::map<std::string, const ContestResult*> references;
  for (const ContestResult& r : results) {
    if (!r.status.ok()) {
      problems.push_back(absl::StrCat(r.name, " failed: ", r.status.message()));
      continue;
    }
    const ContestResult*& reference = references[r.computation];
    if (reference == nullptr) {
      reference = &r;
      continue;
    }
    for (const Check& mine : r.median.checks) {
      for (const Check& ref : reference->median.checks) {
        if (ref.name != mine.name) continue;
        const double tol = std::max(ref.tolerance, mine.tolerance);
        if (!(std::fabs(mine.value - ref.value) <= tol)) {
          disagreement = true;
          problems.push_back(absl::StrFormat(
              "%s: %s = %.6g, but %s computed %.6g (tolerance %.3g)", r.name,
              mine.name, mine.value, reference->name, ref.value, tol));
        }
      }
    }
  }
  if (problems.empty()) return absl::OkStatus();
  // A row that failed leaves a hole in the table, not a wrong number:
  // say which of the two happened.
  return absl::FailedPreconditionError(absl::StrCat(
      disagreement ? "the contestants disagree (the comparison is void):\n  "
                   : "a contestant failed (its row is missing from the comparison):\n  ",
      absl::StrJoin(problems, "\n  ")));
}

int RunAndReport(const Contest& contest, const ContestOptions& options) {
  std::vector<ContestResult> results = contest.Run(options);
  std::cout << FormatContest(contest, results) << std::flush;
  absl::Status agree = AllAgree(results);
  if (!agree.ok()) {
    std::cout << "\nERROR: " << agree.message() << "\n";
    return 1;
  }
  std::cout << "\nAll contestants agree on the checks. Load average (1 min) at the end: "
            << LoadAverage1m() << "\n";
  return 0;
}

}  // namespace tfipu_bench
