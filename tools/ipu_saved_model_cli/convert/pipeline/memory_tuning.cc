#include "tools/ipu_saved_model_cli/convert/pipeline/memory_tuning.h"

#include <cstdlib>

namespace tensorflow_ipu {
namespace saved_model_cli {

std::vector<int> TuneIfOom(std::vector<int> sizes, const std::vector<int64_t>& node_memory,
                           std::vector<int64_t> stage_memory_used, int64_t capacity) {
  const int stages = static_cast<int>(sizes.size());
  if (stages < 2 || stage_memory_used.size() != sizes.size()) return sizes;
  auto free_of = [&](int s) { return capacity - stage_memory_used[s]; };
  auto begin_of = [&](int s) {
    int b = 0;
    for (int k = 0; k < s; ++k) b += sizes[k];
    return b;
  };
  // The stages out of memory before any move, as the original decides.
  std::vector<int> out_of_memory;
  for (int s = 0; s < stages; ++s) {
    if (free_of(s) < 0) out_of_memory.push_back(s);
  }
  for (int s : out_of_memory) {
    if (sizes[s] <= 1) continue;
    int to;
    if (s == stages - 1) {
      to = s - 1;
    } else if (s == 0) {
      to = 1;
    } else {
      to = free_of(s - 1) > free_of(s + 1) ? s - 1 : s + 1;
    }
    const int64_t target = std::llabs(free_of(s) - free_of(to)) / 2;
    const int first = begin_of(s);
    int moved = 0;
    int64_t moved_bytes = 0;
    // Nodes nearest the receiving stage go first: the head of stage s when
    // moving left, its tail when moving right.
    while (moved < sizes[s] - 1 && (moved == 0 || moved_bytes <= target)) {
      const int node = to < s ? first + moved : first + sizes[s] - 1 - moved;
      if (node < 0 || node >= static_cast<int>(node_memory.size())) break;
      moved_bytes += node_memory[node];
      ++moved;
    }
    sizes[s] -= moved;
    sizes[to] += moved;
    stage_memory_used[s] -= moved_bytes;
    stage_memory_used[to] += moved_bytes;
  }
  return sizes;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
