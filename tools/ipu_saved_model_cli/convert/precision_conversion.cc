#include "tools/ipu_saved_model_cli/convert/precision_conversion.h"

#include <set>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// The type attrs the original converts.
constexpr const char* kTypeAttrs[] = {"dtype", "T", "Tparams", "DstT", "SrcT"};

bool IsConverted(DataType t) { return t == DT_HALF || t == DT_FLOAT; }
bool IsFloating(DataType t) { return t == DT_HALF || t == DT_FLOAT || t == DT_DOUBLE; }

// False when a type attr the conversion would change does not allow
// `target` for the node's op.
bool OpAllows(const NodeDef& node, DataType target) {
  absl::StatusOr<const OpDef*> op = OpRegistry::Global()->LookUp(node.op());
  if (!op.ok()) return true;  // nothing known: converted as the original does
  for (const char* name : kTypeAttrs) {
    auto it = node.attr().find(name);
    if (it == node.attr().end() || !IsConverted(it->second.type())) continue;
    for (const AttrDef& a : (*op)->attrs) {
      if (a.name != name || a.allowed_types.empty()) continue;
      bool allowed = false;
      for (DataType t : a.allowed_types) allowed |= t == target;
      if (!allowed) return false;
    }
  }
  return true;
}

absl::Status ConvertConstant(DataType target, AttrValue* value) {
  ASSIGN_OR_RETURN(Tensor from, Tensor::FromProto(value->tensor()));
  Tensor to(target, from.shape());
  for (int64_t i = 0; i < from.NumElements(); ++i) {
    const float v = from.dtype() == DT_HALF ? static_cast<float>(from.data<half>()[i])
                                            : from.data<float>()[i];
    switch (target) {
      case DT_HALF: to.data<half>()[i] = half(v); break;
      case DT_FLOAT: to.data<float>()[i] = v; break;
      default: to.data<double>()[i] = v; break;
    }
  }
  value->clear_tensor();
  to.AsProto(value->mutable_tensor());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<PrecisionConversion>> PrecisionConversion::Create(
    const ConvertOptions& options) {
  std::unique_ptr<PrecisionConversion> c(new PrecisionConversion);
  if (options.precision_mode == "FP16") {
    c->target_ = DT_HALF;
  } else if (options.precision_mode == "FP32") {
    c->target_ = DT_FLOAT;
  } else if (options.precision_mode == "FP64") {
    c->target_ = DT_DOUBLE;
  } else if (!options.precision_mode.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "precision_mode should be FP16, FP32 or FP64, not \"", options.precision_mode, "\"."));
  }
  ASSIGN_OR_RETURN(c->excluded_, NodePatterns::Compile(options.precision_conversion_excluded_nodes,
                                                       "precision_conversion_excluded_nodes"));
  return c;
}

absl::Status PrecisionConversion::Apply(GraphDef* graph, SignatureDef* signature) {
  if (target_ == DT_INVALID) return absl::OkStatus();
  std::set<std::string> io_nodes;
  for (const auto& [k, info] : signature->inputs()) io_nodes.insert(ParseInput(info.name()).node);
  for (const auto& [k, info] : signature->outputs()) io_nodes.insert(ParseInput(info.name()).node);

  GraphDef g = *graph;
  for (NodeDef& n : *g.mutable_node()) {
    if (io_nodes.count(n.name()) || excluded_.Search(n.name()) || !OpAllows(n, target_)) continue;
    for (auto& [name, value] : *n.mutable_attr()) {
      if (name == "value" && value.value_case() == AttrValue::kTensor &&
          IsConverted(value.tensor().dtype())) {
        RETURN_IF_ERROR(ConvertConstant(target_, &value));
        continue;
      }
      bool type_attr = false;
      for (const char* a : kTypeAttrs) type_attr |= name == a;
      if (type_attr && value.value_case() == AttrValue::kType && IsConverted(value.type())) {
        value.set_type(target_);
      }
    }
  }

  // Casts where a node now reads another floating type than it expects.
  std::map<std::string, const NodeDef*> nodes;
  for (const NodeDef& n : g.node()) nodes[n.name()] = &n;
  GraphDef out;
  *out.mutable_versions() = g.versions();
  for (const NodeDef& n : g.node()) {
    NodeDef copy = n;
    std::vector<NodeDef> casts;
    for (int i = 0; i < n.input_size(); ++i) {
      const InputRef ref = ParseInput(n.input(i));
      if (ref.control || !nodes.count(ref.node)) continue;
      const std::optional<DataType> carried = OutputDataType(*nodes.at(ref.node), ref.index);
      const std::optional<DataType> expected = InputDataType(n, i);
      if (!carried || !expected || *carried == *expected || !IsFloating(*carried) ||
          !IsFloating(*expected)) {
        continue;
      }
      NodeDef cast;
      cast.set_name(absl::StrCat(n.name(), "/CastInsertion_", i));
      if (nodes.count(cast.name())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "precision_mode needs a node named '", cast.name(),
            "' for a cast, but the graph has one; rename it"));
      }
      cast.set_op("Cast");
      cast.set_device(n.device());
      cast.add_input(n.input(i));
      (*cast.mutable_attr())["SrcT"] = MakeAttrValue(*carried);
      (*cast.mutable_attr())["DstT"] = MakeAttrValue(*expected);
      // A cast on the IPU belongs where its reader is: the same shard and
      // compiled cluster, with the XLA attrs of the placement.
      for (const auto& [name, value] : n.attr()) {
        if (!name.empty() && name[0] == '_') (*cast.mutable_attr())[name] = value;
      }
      copy.set_input(i, cast.name());
      casts.push_back(std::move(cast));
    }
    *out.add_node() = std::move(copy);
    for (NodeDef& c : casts) *out.add_node() = std::move(c);
  }
  *graph = std::move(out);
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
