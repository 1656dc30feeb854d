#include "tools/ipu_saved_model_cli/convert/manual_sharding.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::StatusOr<std::unique_ptr<ManualSharding>> ManualSharding::Create(
    const ConvertOptions& options) {
  std::unique_ptr<ManualSharding> c(new ManualSharding);
  if (options.manual_sharding.empty()) return c;
  if (static_cast<int64_t>(options.manual_sharding.size()) != options.num_ipus) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The length of manual_sharding (", options.manual_sharding.size(),
        ") should be equal to num_ipus (", options.num_ipus, ")."));
  }
  for (size_t i = 0; i < options.manual_sharding.size(); ++i) {
    ASSIGN_OR_RETURN(NodePatterns p,
                     NodePatterns::Compile(options.manual_sharding[i],
                                           absl::StrCat("manual_sharding (IPU ", i, ")")));
    c->shards_.push_back(std::move(p));
  }
  return c;
}

absl::Status ManualSharding::Apply(GraphDef* graph, SignatureDef* signature) {
  if (shards_.empty()) return absl::OkStatus();
  bool any = false;
  for (const NodeDef& n : graph->node()) any |= OnIpu(n);
  if (!any) return absl::InvalidArgumentError("No ops placed on IPU device to shard.");
  for (NodeDef& n : *graph->mutable_node()) {
    if (!OnIpu(n)) continue;
    int64_t shard = 0;
    for (size_t i = 0; i < shards_.size(); ++i) {
      if (shards_[i].Search(n.name())) shard = static_cast<int64_t>(i);
    }
    (*n.mutable_attr())[kShardAttr] = MakeAttrValue(shard);
  }
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
