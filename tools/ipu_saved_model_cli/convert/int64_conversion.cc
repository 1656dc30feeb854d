#include "tools/ipu_saved_model_cli/convert/int64_conversion.h"

#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

absl::Status ConvertValue(const NodeDef& node, AttrValue* value) {
  ASSIGN_OR_RETURN(Tensor wide, Tensor::FromProto(value->tensor()));
  Tensor narrow(DT_INT32, wide.shape());
  for (int64_t i = 0; i < wide.NumElements(); ++i) {
    const int64_t v = wide.data<int64_t>()[i];
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "int64_to_int32_conversion: node '", node.name(), "' (", node.op(), ") holds ", v,
          ", which int32 cannot hold; exclude the node from the IPU or leave out "
          "--int64_to_int32_conversion"));
    }
    narrow.data<int32_t>()[i] = static_cast<int32_t>(v);
  }
  value->clear_tensor();
  narrow.AsProto(value->mutable_tensor());
  return absl::OkStatus();
}

absl::Status ConvertNode(NodeDef* node) {
  for (auto& [name, value] : *node->mutable_attr()) {
    if (value.value_case() == AttrValue::kType && value.type() == DT_INT64) {
      value.set_type(DT_INT32);
    } else if (value.value_case() == AttrValue::kList) {
      for (int i = 0; i < value.list().type_size(); ++i) {
        if (value.list().type(i) == DT_INT64) value.mutable_list()->set_type(i, DT_INT32);
      }
    } else if (value.value_case() == AttrValue::kTensor && value.tensor().dtype() == DT_INT64) {
      RETURN_IF_ERROR(ConvertValue(*node, &value));
    }
  }
  return absl::OkStatus();
}

NodeDef MakeCast(const std::string& name, const std::string& input, DataType from, DataType to) {
  NodeDef cast;
  cast.set_name(name);
  cast.set_op("Cast");
  cast.add_input(input);
  (*cast.mutable_attr())["SrcT"] = MakeAttrValue(from);
  (*cast.mutable_attr())["DstT"] = MakeAttrValue(to);
  // No device: the host, since the IPU cannot hold the int64 side.
  return cast;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Int64Conversion>> Int64Conversion::Create(
    const ConvertOptions& options) {
  std::unique_ptr<Int64Conversion> c(new Int64Conversion);
  c->enabled_ = options.int64_to_int32_conversion;
  return c;
}

absl::Status Int64Conversion::Apply(GraphDef* graph, SignatureDef* signature) {
  if (!enabled_) return absl::OkStatus();
  GraphDef g = *graph;
  SignatureDef sig = *signature;
  std::set<std::string> names;
  for (const NodeDef& n : g.node()) names.insert(n.name());
  auto fresh = [&](const std::string& name) -> absl::Status {
    if (!names.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "int64_to_int32_conversion needs a node named '", name,
          "' for its cast, but the graph has one; rename it"));
    }
    return absl::OkStatus();
  };

  // Int64 inputs stay int64: their consumers read a cast instead.
  std::map<std::string, std::string> input_casts;  // placeholder -> its cast
  for (const auto& [key, info] : sig.inputs()) {
    if (info.dtype() != DT_INT64) continue;
    const InputRef ref = ParseInput(info.name());
    const std::string cast = ref.node + "/ToInt32";
    RETURN_IF_ERROR(fresh(cast));
    input_casts[InputString(ref.node, ref.index)] = cast;
  }
  std::vector<NodeDef> added;
  for (NodeDef& n : *g.mutable_node()) {
    bool is_cast_input = false;
    for (const auto& [tensor, cast] : input_casts) {
      if (ParseInput(tensor).node == n.name()) is_cast_input = true;
    }
    if (!is_cast_input) RETURN_IF_ERROR(ConvertNode(&n));
    for (std::string& input : *n.mutable_input()) {
      const InputRef ref = ParseInput(input);
      if (ref.control) continue;
      auto it = input_casts.find(InputString(ref.node, ref.index));
      if (it != input_casts.end()) input = it->second;
    }
  }
  for (const auto& [tensor, cast] : input_casts) {
    added.push_back(MakeCast(cast, tensor, DT_INT64, DT_INT32));
  }
  // Int64 outputs computed in int32 are cast back for the signature, in
  // the order of their keys (a proto map has no order of its own).
  std::map<std::string, TensorInfo*> outputs;
  for (auto& [key, info] : *sig.mutable_outputs()) outputs[key] = &info;
  for (auto& [key, info_ptr] : outputs) {
    TensorInfo& info = *info_ptr;
    if (info.dtype() != DT_INT64) continue;
    const InputRef ref = ParseInput(info.name());
    if (input_casts.count(InputString(ref.node, ref.index))) continue;  // an input, fetched as is
    const std::string cast =
        ref.index == 0 ? ref.node + "/ToInt64" : absl::StrCat(ref.node, "/ToInt64_", ref.index);
    RETURN_IF_ERROR(fresh(cast));
    added.push_back(MakeCast(cast, InputString(ref.node, ref.index), DT_INT32, DT_INT64));
    info.set_name(TensorName(cast, 0));
  }
  for (NodeDef& n : added) *g.add_node() = std::move(n);
  *graph = std::move(g);
  *signature = std::move(sig);
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
