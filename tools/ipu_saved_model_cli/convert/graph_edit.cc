#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/op_registry.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// The dtypes of the args of one side of `node`'s op, in order, each arg
// expanded to as many tensors as it has (N * T for number_attr, the list
// for type_list_attr).
std::optional<std::vector<DataType>> ArgTypes(const NodeDef& node, bool inputs) {
  absl::StatusOr<const OpDef*> op = OpRegistry::Global()->LookUp(node.op());
  if (!op.ok()) return std::nullopt;
  auto attr = [&](const std::string& name) -> const AttrValue* {
    auto it = node.attr().find(name);
    if (it != node.attr().end()) return &it->second;
    for (const AttrDef& a : (*op)->attrs) {
      if (a.name == name && a.default_value) return &*a.default_value;
    }
    return nullptr;
  };
  std::vector<DataType> types;
  for (const ArgDef& arg : inputs ? (*op)->inputs : (*op)->outputs) {
    if (!arg.type_list_attr.empty()) {
      const AttrValue* list = attr(arg.type_list_attr);
      if (list == nullptr) return std::nullopt;
      for (int t : list->list().type()) types.push_back(static_cast<DataType>(t));
      continue;
    }
    DataType type = arg.type;
    if (!arg.type_attr.empty()) {
      const AttrValue* t = attr(arg.type_attr);
      if (t == nullptr) return std::nullopt;
      type = t->type();
    }
    int64_t count = 1;
    if (!arg.number_attr.empty()) {
      const AttrValue* n = attr(arg.number_attr);
      if (n == nullptr) return std::nullopt;
      count = n->i();
    }
    for (int64_t i = 0; i < count; ++i) types.push_back(type);
  }
  return types;
}

std::optional<DataType> Pick(const std::optional<std::vector<DataType>>& types, int index) {
  if (!types || index < 0 || index >= static_cast<int>(types->size())) return std::nullopt;
  return (*types)[index];
}

}  // namespace

InputRef ParseInput(absl::string_view input) {
  InputRef ref;
  if (!input.empty() && input[0] == '^') {
    ref.control = true;
    input.remove_prefix(1);
  }
  const size_t colon = input.rfind(':');
  int index = 0;
  if (colon != absl::string_view::npos && absl::SimpleAtoi(input.substr(colon + 1), &index)) {
    ref.node = std::string(input.substr(0, colon));
    ref.index = index;
  } else {
    ref.node = std::string(input);
  }
  return ref;
}

std::string InputString(absl::string_view node, int index) {
  return index == 0 ? std::string(node) : absl::StrCat(node, ":", index);
}

std::string TensorName(absl::string_view node, int index) {
  return absl::StrCat(node, ":", index);
}

bool OnIpu(const NodeDef& node) {
  return node.device().find("IPU") != std::string::npos;
}

void PlaceOnIpu(NodeDef* node) {
  node->set_device(kIpuDevice);
  auto& attr = *node->mutable_attr();
  attr["_XlaCompile"] = MakeAttrValue(true);
  attr["_XlaScope"] = MakeAttrValue("jit_scope_ipu_0");
  attr["_XlaSeparateCompiledGradients"] = MakeAttrValue(false);
}

std::optional<DataType> InputDataType(const NodeDef& node, int index) {
  return Pick(ArgTypes(node, /*inputs=*/true), index);
}

std::optional<DataType> OutputDataType(const NodeDef& node, int index) {
  return Pick(ArgTypes(node, /*inputs=*/false), index);
}

std::map<std::string, NodeDef*> NodesByName(GraphDef* graph) {
  std::map<std::string, NodeDef*> nodes;
  for (NodeDef& n : *graph->mutable_node()) nodes[n.name()] = &n;
  return nodes;
}

std::string DeterministicBytes(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!message.SerializeToCodedStream(&coded)) return std::string();
  }
  return bytes;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
