// Splitting the costs of nodes in topological order into contiguous
// pipeline stages. Both functions return the number of nodes of each
// stage (all positive, summing to costs.size()).
//
//   GreedySplit({1, 2, 3, 4, 4, 3, 2, 1}, 2)  -> {4, 4}
//   ExactSplit({20, 40, 30, 10, 10, 10, 10, 10, 50, 70, 30}, 8)
//
// GreedySplit is the original tool's `find_opt`, reproduced exactly as the
// baseline: for g groups, it scores each first cut i (1 <= i <= n-g+1) by
// (sum(costs[:i]) - sum(costs)/g)^2 - i, takes the smallest score (the
// smallest i among equal scores: the original's first solution), and
// recurses on the rest with g-1 groups. It does not minimise the slowest
// stage: the mean it aims at is recomputed from what is left, and the "- i"
// term favours longer first chunks.
//
// ExactSplit minimises the largest stage cost (the slowest stage bounds a
// pipeline's throughput) by dynamic programming over prefixes: best[k][j]
// is the smallest possible largest chunk when the first j costs form k
// chunks. O(g n^2). Ties are broken deterministically: going from the last
// stage to the first, each stage is the shortest one that still allows an
// optimal split of what lies before it (so spare capacity goes to the
// earlier stages).
//
// Both: InvalidArgument for no groups, fewer costs than groups, a negative
// cost, or costs whose sum does not fit in 63 bits.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_SPLIT_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_SPLIT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::StatusOr<std::vector<int>> GreedySplit(const std::vector<int64_t>& costs, int groups);
absl::StatusOr<std::vector<int>> ExactSplit(const std::vector<int64_t>& costs, int groups);

// The cost of each stage of `sizes` (sums of consecutive costs).
std::vector<int64_t> StageCosts(const std::vector<int64_t>& costs, const std::vector<int>& sizes);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_SPLIT_H_
