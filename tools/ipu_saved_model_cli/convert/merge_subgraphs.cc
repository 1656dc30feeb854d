#include "tools/ipu_saved_model_cli/convert/merge_subgraphs.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"
#include "tools/ipu_saved_model_cli/convert/ipu_part.h"

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
  RETURN_IF_ERROR(CheckIpuPartIsOneBlock(*graph, "merge_subgraphs"));

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
  // n:0, n/output_k for n:k (k > 0); in the order of the tensor names, as
  // the original adds them (a proto map has no order of its own).
  SignatureDef sig = *signature;
  std::vector<std::pair<std::string, TensorInfo*>> outputs;
  for (auto& [key, info] : *sig.mutable_outputs()) outputs.emplace_back(info.name(), &info);
  std::sort(outputs.begin(), outputs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::set<std::string> added;
  for (auto& [unused, info_ptr] : outputs) {
    TensorInfo& info = *info_ptr;
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
