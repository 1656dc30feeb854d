#include "tools/ipu_saved_model_cli/convert/ipu_placement.h"

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// "x:0" -> "x", "x:k" -> "x_k", as the original names the placeholders.
std::string PlaceholderName(const InputRef& ref) {
  return ref.index == 0 ? ref.node : absl::StrCat(ref.node, "_", ref.index);
}

// Keeps the IPU part of `graph` (see the header).
absl::Status RemoveCpuHead(GraphDef* graph, SignatureDef* signature) {
  std::map<std::string, const NodeDef*> nodes;
  for (const NodeDef& n : graph->node()) nodes[n.name()] = &n;
  for (const NodeDef& n : graph->node()) {
    if (OnIpu(n)) continue;
    for (const std::string& input : n.input()) {
      const InputRef ref = ParseInput(input);
      auto it = nodes.find(ref.node);
      if (it != nodes.end() && OnIpu(*it->second)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Please place ", ref.node, " on CPU, a complete CPU head is required."));
      }
    }
  }
  for (const auto& [key, info] : signature->outputs()) {
    const InputRef ref = ParseInput(info.name());
    auto it = nodes.find(ref.node);
    if (it != nodes.end() && !OnIpu(*it->second)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "signature output '", key, "' (", info.name(), ") is computed on the CPU by node '",
          ref.node, "', which --remove_excluded_nodes removes; exclude fewer nodes or keep them"));
    }
  }

  // The types and shapes of the tensors that cross from the CPU part.
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> typed, Graph::FromGraphDef(*graph));
  GraphDef out;
  *out.mutable_versions() = graph->versions();
  std::vector<InputRef> edges;
  std::set<std::string> placeholder_names;
  std::vector<NodeDef> ipu_nodes;
  for (const NodeDef& n : graph->node()) {
    if (!OnIpu(n)) continue;
    NodeDef copy = n;
    copy.clear_input();
    for (const std::string& input : n.input()) {
      const InputRef ref = ParseInput(input);
      if (OnIpu(*nodes.at(ref.node))) {
        copy.add_input(input);
        continue;
      }
      if (ref.control) continue;  // the CPU part no longer runs
      const std::string name = PlaceholderName(ref);
      if (placeholder_names.insert(name).second) edges.push_back(ref);
      copy.add_input(name);
    }
    ipu_nodes.push_back(std::move(copy));
  }
  SignatureDef result = *signature;
  result.clear_inputs();
  for (const InputRef& ref : edges) {
    const std::string name = PlaceholderName(ref);
    auto clash = nodes.find(name);
    if (clash != nodes.end() && OnIpu(*clash->second)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the placeholder for tensor ", TensorName(ref.node, ref.index),
          " would be named '", name, "', like an IPU node; rename that node"));
    }
    const Node* producer = typed->FindNode(ref.node);
    const DataType dtype = producer->output_type(ref.index);
    const TensorShape& shape = producer->output_shape(ref.index);
    NodeDef* p = out.add_node();
    p->set_name(name);
    p->set_op("Placeholder");
    (*p->mutable_attr())["dtype"] = MakeAttrValue(dtype);
    shape.AsProto((*p->mutable_attr())["shape"].mutable_shape());
    TensorInfo& info = (*result.mutable_inputs())[name];
    info.set_name(TensorName(name, 0));
    info.set_dtype(dtype);
    shape.AsProto(info.mutable_tensor_shape());
  }
  for (NodeDef& n : ipu_nodes) *out.add_node() = std::move(n);
  *graph = std::move(out);
  *signature = std::move(result);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<IpuPlacement>> IpuPlacement::Create(
    const ConvertOptions& options) {
  std::unique_ptr<IpuPlacement> c(new IpuPlacement);
  c->enabled_ = !options.no_ipu_placement;
  c->remove_excluded_nodes_ = options.remove_excluded_nodes;
  ASSIGN_OR_RETURN(c->excluded_, NodePatterns::Compile(options.excluded_nodes, "excluded_nodes"));
  return c;
}

absl::Status IpuPlacement::Apply(GraphDef* graph, SignatureDef* signature) {
  if (!enabled_) return absl::OkStatus();
  GraphDef placed = *graph;
  for (NodeDef& n : *placed.mutable_node()) {
    if (n.op() != "Placeholder" && !excluded_.Search(n.name())) PlaceOnIpu(&n);
  }
  SignatureDef sig = *signature;
  if (remove_excluded_nodes_) RETURN_IF_ERROR(RemoveCpuHead(&placed, &sig));
  *graph = std::move(placed);
  *signature = std::move(sig);
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
