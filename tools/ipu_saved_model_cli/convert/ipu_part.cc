#include "tools/ipu_saved_model_cli/convert/ipu_part.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::Status CheckIpuPartIsOneBlock(const GraphDef& graph, absl::string_view who) {
  std::map<std::string, std::vector<const NodeDef*>> consumers;
  for (const NodeDef& n : graph.node()) {
    for (const std::string& input : n.input()) consumers[ParseInput(input).node].push_back(&n);
  }
  // Walk forward from the IPU part through CPU nodes: reaching an IPU node
  // again is a CPU node between IPU nodes.
  std::map<std::string, std::string> after_ipu;  // CPU node -> an IPU node before it
  std::vector<const NodeDef*> stack;
  for (const NodeDef& n : graph.node()) {
    if (!OnIpu(n)) continue;
    for (const NodeDef* c : consumers[n.name()]) {
      if (!OnIpu(*c) && after_ipu.emplace(c->name(), n.name()).second) stack.push_back(c);
    }
  }
  while (!stack.empty()) {
    const NodeDef* n = stack.back();
    stack.pop_back();
    for (const NodeDef* c : consumers[n->name()]) {
      if (OnIpu(*c)) {
        return absl::InvalidArgumentError(absl::StrCat(
            who, ": node '", n->name(), "' runs on the CPU between IPU nodes ('",
            after_ipu.at(n->name()), "' before it, '", c->name(),
            "' after it), so the IPU part cannot be one program; place it on the IPU or "
            "exclude the nodes after it too"));
      }
      if (after_ipu.emplace(c->name(), after_ipu.at(n->name())).second) stack.push_back(c);
    }
  }
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
