// The command-line flags every benchmark understands:
//   --steps=N      timed steps (or calls) per run; 0: the benchmark's default
//   --repeats=N    timed runs per contestant, median reported (default 3)
//   --only=a,b     run only these contestants (names as printed)
//   --threads=N    threads of every contestant (default 2, the cores of
//                  this project's machines)
//
//   int main(int argc, char** argv) {
//     std::vector<char*> args = ParseBenchFlags(argc, argv, "infer_mlp: ...");
//     ContestOptions options = ContestOptionsFromFlags(/*default_steps=*/1875);
#ifndef TOOLS_BENCH_BENCH_FLAGS_H_
#define TOOLS_BENCH_BENCH_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "tools/bench/contest.h"

ABSL_DECLARE_FLAG(int64_t, steps);
ABSL_DECLARE_FLAG(int32_t, repeats);
ABSL_DECLARE_FLAG(std::string, only);
ABSL_DECLARE_FLAG(int32_t, threads);

namespace tfipu_bench {

// Parses the flags (absl); returns the positional arguments.
std::vector<char*> ParseBenchFlags(int argc, char** argv, const char* usage);
ContestOptions ContestOptionsFromFlags(int64_t default_steps);
int BenchThreads();

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_BENCH_FLAGS_H_
