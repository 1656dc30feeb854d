#include "tools/ipu_saved_model_cli/convert/gelu_replacement.h"

#include <deque>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// The type of the IpuGelu reading `node`, from the attrs the original reads.
std::optional<DataType> GeluType(const NodeDef& node) {
  for (const char* name : {"T", "Tparams", "dtype", "SrcT"}) {
    auto it = node.attr().find(name);
    if (it != node.attr().end() && it->second.value_case() == AttrValue::kType) {
      return it->second.type();
    }
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::unique_ptr<GeluReplacement>> GeluReplacement::Create(
    const ConvertOptions& options) {
  std::unique_ptr<GeluReplacement> c(new GeluReplacement);
  if (!options.gelu_replacement) return c;
  c->enabled_ = true;
  const GeluReplacementOptions& g = *options.gelu_replacement;
  ASSIGN_OR_RETURN(c->nodes_, NodePatterns::Compile(g.nodes, "gelu_replacement['nodes']"));
  ASSIGN_OR_RETURN(c->inputs_, NodePatterns::Compile(g.node_as_gelu_input,
                                                     "gelu_replacement['node_as_gelu_input']"));
  ASSIGN_OR_RETURN(c->consumers_, NodePatterns::Compile(
                                      g.node_use_gelu_output,
                                      "gelu_replacement['node_use_gelu_output']"));
  return c;
}

absl::Status GeluReplacement::Apply(GraphDef* graph, SignatureDef* signature) {
  if (!enabled_) return absl::OkStatus();
  std::map<std::string, const NodeDef*> nodes;
  for (const NodeDef& n : graph->node()) nodes[n.name()] = &n;
  auto deleted = [&](const std::string& name) { return nodes_.Search(name); };

  // The GELU inputs, each with its new IpuGelu.
  std::map<std::string, std::string> gelu_of_input;
  std::vector<NodeDef> gelus;
  for (const NodeDef& n : graph->node()) {
    if (deleted(n.name()) || !inputs_.Search(n.name())) continue;
    const std::string name = n.name() + "/IpuGelu";
    const std::optional<DataType> type = GeluType(n);
    if (!type) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " can not get type from ", n.name(), "."));
    }
    if (nodes.count(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gelu_replacement adds '", name, "', but the graph has a node of that name"));
    }
    NodeDef gelu;
    gelu.set_name(name);
    gelu.set_op("IpuGelu");
    gelu.set_device(n.device());
    gelu.add_input(n.name());
    (*gelu.mutable_attr())["dtype"] = MakeAttrValue(*type);
    gelu_of_input[n.name()] = name;
    gelus.push_back(std::move(gelu));
  }

  // Which GELU a deleted node belongs to: the GELU inputs it reads,
  // directly or through other deleted nodes.
  auto owner = [&](const std::string& start) -> absl::StatusOr<std::string> {
    std::set<std::string> seen{start}, found;
    std::deque<std::string> queue{start};
    while (!queue.empty()) {
      const NodeDef& n = *nodes.at(queue.front());
      queue.pop_front();
      for (const std::string& input : n.input()) {
        const InputRef ref = ParseInput(input);
        if (!nodes.count(ref.node)) continue;
        if (gelu_of_input.count(ref.node)) {
          found.insert(ref.node);
        } else if (deleted(ref.node) && seen.insert(ref.node).second) {
          queue.push_back(ref.node);
        }
      }
    }
    if (found.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gelu_replacement: deleted node '", start, "' reads ",
          found.empty() ? "no node of node_as_gelu_input"
                        : absl::StrCat("several nodes of node_as_gelu_input (",
                                       absl::StrJoin(found, ", "), ")"),
          ", so which GELU it belongs to is unknown; check the patterns"));
    }
    return gelu_of_input.at(*found.begin());
  };

  GraphDef out;
  *out.mutable_versions() = graph->versions();
  for (const NodeDef& n : graph->node()) {
    if (deleted(n.name())) continue;
    NodeDef copy = n;
    for (std::string& input : *copy.mutable_input()) {
      const InputRef ref = ParseInput(input);
      if (!nodes.count(ref.node) || !deleted(ref.node)) continue;
      if (!consumers_.Search(n.name())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "gelu_replacement deletes '", ref.node, "', which node '", n.name(),
            "' reads; add that node to node_use_gelu_output or exclude '", ref.node,
            "' from nodes"));
      }
      ASSIGN_OR_RETURN(std::string gelu, owner(ref.node));
      input = ref.control ? "^" + gelu : gelu;
    }
    *out.add_node() = std::move(copy);
    auto g = gelu_of_input.find(n.name());
    if (g != gelu_of_input.end()) {
      for (NodeDef& gelu : gelus) {
        if (gelu.name() == g->second) *out.add_node() = gelu;
      }
    }
  }
  for (const auto& [key, info] : signature->outputs()) {
    const std::string node = ParseInput(info.name()).node;
    if (nodes.count(node) && deleted(node)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gelu_replacement deletes '", node, "', which signature output '", key,
          "' names; exclude it from nodes"));
    }
  }
  *graph = std::move(out);
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
