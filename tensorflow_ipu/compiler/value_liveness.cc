#include "tensorflow_ipu/compiler/value_liveness.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "tensorflow_ipu/compiler/loop_formation.h"

namespace tensorflow_ipu {
namespace compiler {

std::vector<int> LastUses(const ClusterIr& ir) {
  const int n = static_cast<int>(ir.ops.size());
  std::vector<std::string> loop_of(n);
  absl::flat_hash_map<std::string, int> loop_end;
  for (int i = 0; i < n; ++i) {
    loop_of[i] = LoopOf(ir.ops[i]);
    if (!loop_of[i].empty()) loop_end[loop_of[i]] = i;
  }
  std::vector<int> last(n);
  for (int i = 0; i < n; ++i) last[i] = i;
  for (int j = 0; j < n; ++j) {
    const std::string& loop = loop_of[j];
    if (loop.empty()) {
      for (const ValueRef& in : ir.ops[j].inputs) {
        last[in.op] = std::max(last[in.op], j);
      }
      continue;
    }
    const OpDef* def = ir.ops[j].op_def();
    const bool loop_exit =
        def != nullptr && def->loop_boundary == LoopBoundary::kExit;
    for (const ValueRef& in : ir.ops[j].inputs) {
      int use = j;
      if (loop_of[in.op] != loop || loop_exit) {
        use = loop_end.at(loop);
      }
      last[in.op] = std::max(last[in.op], use);
    }
  }
  for (const ValueRef& r : ir.results) last[r.op] = n;
  return last;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
