#include "tensorflow_ipu/core/attr_value_util.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {

AttrValue MakeAttrValue(int64_t v) {
  AttrValue a;
  a.set_i(v);
  return a;
}
AttrValue MakeAttrValue(float v) {
  AttrValue a;
  a.set_f(v);
  return a;
}
AttrValue MakeAttrValue(bool v) {
  AttrValue a;
  a.set_b(v);
  return a;
}
AttrValue MakeAttrValue(DataType v) {
  AttrValue a;
  a.set_type(v);
  return a;
}
AttrValue MakeAttrValue(absl::string_view v) {
  AttrValue a;
  a.set_s(std::string(v));
  return a;
}
AttrValue MakeAttrValue(const TensorShape& v) {
  AttrValue a;
  v.AsProto(a.mutable_shape());
  return a;
}
AttrValue MakeAttrValue(const std::vector<TensorShape>& v) {
  AttrValue a;
  a.mutable_list();
  for (const TensorShape& s : v) s.AsProto(a.mutable_list()->add_shape());
  return a;
}
AttrValue MakeAttrValue(const Tensor& v) {
  AttrValue a;
  v.AsProto(a.mutable_tensor());
  return a;
}
AttrValue MakeAttrValue(const std::vector<int64_t>& v) {
  AttrValue a;
  auto* list = a.mutable_list();
  for (int64_t x : v) list->add_i(x);
  return a;
}
AttrValue MakeAttrValue(const std::vector<DataType>& v) {
  AttrValue a;
  auto* list = a.mutable_list();
  for (DataType x : v) list->add_type(x);
  return a;
}

std::string AttrValueKind(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS: return "string";
    case AttrValue::kI: return "int";
    case AttrValue::kF: return "float";
    case AttrValue::kB: return "bool";
    case AttrValue::kType: return "type";
    case AttrValue::kShape: return "shape";
    case AttrValue::kTensor: return "tensor";
    case AttrValue::kList: {
      const auto& l = value.list();
      if (l.i_size() > 0) return "list(int)";
      if (l.f_size() > 0) return "list(float)";
      if (l.b_size() > 0) return "list(bool)";
      if (l.type_size() > 0) return "list(type)";
      if (l.s_size() > 0) return "list(string)";
      if (l.shape_size() > 0) return "list(shape)";
      if (l.tensor_size() > 0) return "list(tensor)";
      return "list";
    }
    default: return "none";
  }
}

namespace {

absl::StatusOr<const AttrValue*> FindAttr(const NodeDef& node,
                                          absl::string_view name,
                                          absl::string_view want,
                                          AttrValue::ValueCase want_case) {
  auto it = node.attr().find(std::string(name));
  if (it == node.attr().end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node '", node.name(), "' (op: '", node.op(), "') has no attr '",
        name, "'"));
  }
  if (it->second.value_case() != want_case) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attr '", name, "' of node '", node.name(), "' (op: '", node.op(),
        "') has a value of kind ", AttrValueKind(it->second), ", expected ",
        want));
  }
  return &it->second;
}

}  // namespace

template <>
absl::StatusOr<int64_t> GetNodeAttr<int64_t>(const NodeDef& node,
                                             absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "int", AttrValue::kI));
  return a->i();
}
template <>
absl::StatusOr<float> GetNodeAttr<float>(const NodeDef& node,
                                         absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "float", AttrValue::kF));
  return a->f();
}
template <>
absl::StatusOr<bool> GetNodeAttr<bool>(const NodeDef& node,
                                       absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "bool", AttrValue::kB));
  return a->b();
}
template <>
absl::StatusOr<DataType> GetNodeAttr<DataType>(const NodeDef& node,
                                               absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "type", AttrValue::kType));
  return a->type();
}
template <>
absl::StatusOr<std::string> GetNodeAttr<std::string>(const NodeDef& node,
                                                     absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "string", AttrValue::kS));
  return a->s();
}
template <>
absl::StatusOr<TensorShape> GetNodeAttr<TensorShape>(const NodeDef& node,
                                                     absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "shape", AttrValue::kShape));
  return TensorShape::FromProto(a->shape());
}
template <>
absl::StatusOr<Tensor> GetNodeAttr<Tensor>(const NodeDef& node,
                                           absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "tensor", AttrValue::kTensor));
  return Tensor::FromProto(a->tensor());
}
template <>
absl::StatusOr<std::vector<int64_t>> GetNodeAttr<std::vector<int64_t>>(
    const NodeDef& node, absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "list(int)", AttrValue::kList));
  return std::vector<int64_t>(a->list().i().begin(), a->list().i().end());
}

template <>
absl::StatusOr<std::vector<DataType>> GetNodeAttr<std::vector<DataType>>(
    const NodeDef& node, absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "list(type)", AttrValue::kList));
  std::vector<DataType> types;
  for (int t : a->list().type()) types.push_back(static_cast<DataType>(t));
  return types;
}
template <>
absl::StatusOr<std::vector<TensorShape>> GetNodeAttr<std::vector<TensorShape>>(
    const NodeDef& node, absl::string_view name) {
  ASSIGN_OR_RETURN(const AttrValue* a,
                   FindAttr(node, name, "list(shape)", AttrValue::kList));
  std::vector<TensorShape> shapes;
  for (const auto& proto : a->list().shape()) {
    ASSIGN_OR_RETURN(TensorShape s, TensorShape::FromProto(proto));
    shapes.push_back(std::move(s));
  }
  return shapes;
}

std::string SummarizeAttrValue(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS: return absl::StrCat("\"", value.s(), "\"");
    case AttrValue::kI: return absl::StrCat(value.i());
    case AttrValue::kF: return absl::StrCat(value.f());
    case AttrValue::kB: return value.b() ? "true" : "false";
    case AttrValue::kType: return DataTypeString(value.type());
    case AttrValue::kShape: {
      auto s = TensorShape::FromProto(value.shape());
      return s.ok() ? s->DebugString() : "<invalid shape>";
    }
    case AttrValue::kTensor: {
      auto t = Tensor::FromProto(value.tensor());
      return t.ok() ? t->SummaryString() : "<invalid tensor>";
    }
    case AttrValue::kList:
      return absl::StrCat("[", absl::StrJoin(value.list().i(), ", "), "]");
    default: return "<unset>";
  }
}

}  // namespace tensorflow_ipu
