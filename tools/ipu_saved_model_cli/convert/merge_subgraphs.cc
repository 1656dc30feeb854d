#include "tools/ipu_saved_model_cli/convert/merge_subgraphs.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::StatusOr<std::unique_ptr<MergeSubgraphs>> MergeSubgraphs::Create(
    const ConvertOptions& options) {
  std::unique_ptr<MergeSubgraphs> c(new MergeSubgraphs);
  c->enabled_ = options.merge_subgraphs && options.embedded_runtime_save_config.is_null();
  return c;
}

absl::Status MergeSubgraphs::Apply(GraphDef* graph, SignatureDef* signature) {
  if (!enabled_) return absl::OkStatus();
  std::map<std::string, const NodeDef*> nodes;
  bool any = false;
  for (const NodeDef& n : graph->node()) {
    nodes[n.name()] = &n;
    any |= OnIpu(n);
  }
  if (!any) {
    return absl::FailedPreconditionError(
        "merge_subgraphs: no node is placed on the IPU (with --no_ipu_placement, or every "
        "node excluded), so there is nothing to merge; leave out --merge_subgraphs");
  }
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

  // The output nodes computed on the IPU, renamed n -> n/wrapped.
  std::map<std::string, std::string> renamed;
  for (const auto& [key, info] : signature->outputs()) {
    const InputRef ref = ParseInput(info.name());
    auto it = nodes.find(ref.node);
    if (it == nodes.end() || !OnIpu(*it->second)) continue;
    const std::string wrapped = ref.node + "/wrapped";
    if (nodes.count(wrapped)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "merge_subgraphs renames output node '", ref.node, "' to '", wrapped,
          "', but the graph has a node of that name; rename it"));
    }
    renamed[ref.node] = wrapped;
  }

  GraphDef g = *graph;
  for (NodeDef& n : *g.mutable_node()) {
    if (OnIpu(n)) (*n.mutable_attr())[kCompileClusterAttr] = MakeAttrValue(kMergedClusterName);
    auto self = renamed.find(n.name());
    if (self != renamed.end()) n.set_name(self->second);
    for (std::string& input : *n.mutable_input()) {
      const InputRef ref = ParseInput(input);
      auto it = renamed.find(ref.node);
      if (it == renamed.end()) continue;
      input = (ref.control ? "^" : "") + InputString(it->second, ref.index);
    }
  }
  // One Identity per output tensor, named as the signature names it: n for
  // n:0, n/output_k for n:k (k > 0).
  SignatureDef sig = *signature;
  std::set<std::string> added;
  for (auto& [key, info] : *sig.mutable_outputs()) {
    const InputRef ref = ParseInput(info.name());
    auto it = renamed.find(ref.node);
    if (it == renamed.end()) continue;
    const std::string name =
        ref.index == 0 ? ref.node : absl::StrCat(ref.node, "/output_", ref.index);
    info.set_name(TensorName(name, 0));
    if (!added.insert(name).second) continue;  // two keys, one tensor
    const NodeDef& wrapped = *nodes.at(ref.node);
    NodeDef* identity = g.add_node();
    identity->set_name(name);
    identity->set_op("Identity");
    identity->add_input(InputString(it->second, ref.index));
    PlaceOnIpu(identity);
    const std::optional<DataType> type = OutputDataType(wrapped, ref.index);
    (*identity->mutable_attr())["T"] = MakeAttrValue(type ? *type : info.dtype());
    (*identity->mutable_attr())[kCompileClusterAttr] = MakeAttrValue(kMergedClusterName);
    auto shard = wrapped.attr().find(kShardAttr);
    if (shard != wrapped.attr().end()) (*identity->mutable_attr())[kShardAttr] = shard->second;
  }
  *graph = std::move(g);
  *signature = std::move(sig);
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
