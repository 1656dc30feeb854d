// The original tool's tune-if-OOM move: when a split's stages do not fit
// their IPUs' memory, move nodes at the boundary of each stage that is out
// of memory to a neighbouring stage, regardless of the cycle balance.
//
//   std::vector<int> sizes = {30, 32};                  // nodes per stage
//   sizes = TuneIfOom(sizes, node_memory, stage_memory_used, capacity);
//
// For each stage over capacity before any move, in order: the last stage gives to its left
// neighbour, the first to its right, a middle one to the neighbour with
// more free memory. It moves the nodes nearest that neighbour until the
// moved memory exceeds half the difference of the two stages' free memory
// (at least one node), and always keeps one node. `stage_memory_used` is
// what the profile measured per stage; it is updated with the moved
// nodes' memory, so a later stage's move sees the earlier ones.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_MEMORY_TUNING_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_MEMORY_TUNING_H_

#include <cstdint>
#include <vector>

namespace tensorflow_ipu {
namespace saved_model_cli {

std::vector<int> TuneIfOom(std::vector<int> sizes, const std::vector<int64_t>& node_memory,
                           std::vector<int64_t> stage_memory_used, int64_t capacity);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_MEMORY_TUNING_H_
