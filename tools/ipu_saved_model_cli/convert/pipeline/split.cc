#include "tools/ipu_saved_model_cli/convert/pipeline/split.h"

#include <limits>

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

absl::Status CheckSplitArguments(const std::vector<int64_t>& costs, int groups) {
  if (groups < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot split into ", groups, " pipeline stages; give at least 1"));
  }
  if (static_cast<int64_t>(costs.size()) < groups) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot split ", costs.size(), " nodes into ", groups,
                     " pipeline stages: every stage needs a node; use fewer stages"));
  }
  int64_t total = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    if (costs[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("the cost of node ", i, " is negative (", costs[i], ")"));
    }
    if (costs[i] > std::numeric_limits<int64_t>::max() - total) {
      return absl::InvalidArgumentError("the node costs sum to more than 2^63 - 1");
    }
    total += costs[i];
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<int>> GreedySplit(const std::vector<int64_t>& costs, int groups) {
  if (absl::Status s = CheckSplitArguments(costs, groups); !s.ok()) return s;
  std::vector<int> sizes;
  size_t begin = 0;
  for (int g = groups; g > 1; --g) {
    const size_t n = costs.size() - begin;
    double rest = 0;
    for (size_t k = begin; k < costs.size(); ++k) rest += static_cast<double>(costs[k]);
    // The original's arithmetic: a float mean, integer prefix sums.
    const double mean = rest / g;
    double prefix = 0;
    double best_score = 0;
    size_t best_cut = 0;
    for (size_t i = 1; i <= n - g + 1; ++i) {
      prefix += static_cast<double>(costs[begin + i - 1]);
      const double d = prefix - mean;
      const double score = d * d - static_cast<double>(i);
      if (best_cut == 0 || score < best_score) {
        best_score = score;
        best_cut = i;
      }
    }
    sizes.push_back(static_cast<int>(best_cut));
    begin += best_cut;
  }
  sizes.push_back(static_cast<int>(costs.size() - begin));
  return sizes;
}

absl::StatusOr<std::vector<int>> ExactSplit(const std::vector<int64_t>& costs, int groups) {
  if (absl::Status s = CheckSplitArguments(costs, groups); !s.ok()) return s;
  const int n = static_cast<int>(costs.size());
  std::vector<int64_t> prefix(n + 1, 0);
  for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + costs[i];
  constexpr int64_t kInf = std::numeric_limits<int64_t>::max();
  // best[k][j]: the smallest largest chunk of costs[0, j) cut into k chunks.
  std::vector<std::vector<int64_t>> best(groups + 1, std::vector<int64_t>(n + 1, kInf));
  best[0][0] = 0;
  for (int k = 1; k <= groups; ++k) {
    for (int j = k; j <= n; ++j) {
      for (int i = k - 1; i < j; ++i) {
        if (best[k - 1][i] == kInf) continue;
        const int64_t worst = std::max(best[k - 1][i], prefix[j] - prefix[i]);
        if (worst < best[k][j]) best[k][j] = worst;
      }
    }
  }
  const int64_t optimum = best[groups][n];
  std::vector<int> sizes(groups);
  int end = n;
  for (int k = groups; k >= 1; --k) {
    // The shortest last chunk that keeps the optimum reachable.
    for (int i = end - 1; i >= k - 1; --i) {
      if (best[k - 1][i] != kInf && best[k - 1][i] <= optimum &&
          prefix[end] - prefix[i] <= optimum) {
        sizes[k - 1] = end - i;
        end = i;
        break;
      }
    }
  }
  return sizes;
}

std::vector<int64_t> StageCosts(const std::vector<int64_t>& costs, const std::vector<int>& sizes) {
  std::vector<int64_t> out;
  size_t k = 0;
  for (int size : sizes) {
    int64_t sum = 0;
    for (int i = 0; i < size && k < costs.size(); ++i) sum += costs[k++];
    out.push_back(sum);
  }
  return out;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
