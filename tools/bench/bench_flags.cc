#include "tools/bench/bench_flags.h"

#include <algorithm>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_split.h"

ABSL_FLAG(int64_t, steps, 0, "timed steps (or calls) per run; 0: the benchmark's default");
ABSL_FLAG(int32_t, repeats, 3, "timed runs per contestant; the median is reported");
ABSL_FLAG(std::string, only, "", "comma-separated contestants to run (default: all)");
ABSL_FLAG(int32_t, threads, 2, "threads of every contestant");

namespace tfipu_bench {

std::vector<char*> ParseBenchFlags(int argc, char** argv, const char* usage) {
  absl::SetProgramUsageMessage(usage);
  return absl::ParseCommandLine(argc, argv);
}

ContestOptions ContestOptionsFromFlags(int64_t default_steps) {
  ContestOptions o;
  const int64_t steps = absl::GetFlag(FLAGS_steps);
  o.steps = steps > 0 ? steps : default_steps;
  o.repeats = absl::GetFlag(FLAGS_repeats);
  const std::string only = absl::GetFlag(FLAGS_only);
  if (!only.empty()) o.only = absl::StrSplit(only, ',', absl::SkipEmpty());
  return o;
}

int BenchThreads() { return std::max(1, absl::GetFlag(FLAGS_threads)); }

}  // namespace tfipu_bench
