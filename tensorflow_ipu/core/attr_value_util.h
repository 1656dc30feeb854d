// Building and reading node attributes.
//
//   (*node.mutable_attr())["T"] = MakeAttrValue(DT_FLOAT);
//   ASSIGN_OR_RETURN(bool transpose, GetNodeAttr<bool>(node, "transpose_a"));
#ifndef TENSORFLOW_IPU_CORE_ATTR_VALUE_UTIL_H_
#define TENSORFLOW_IPU_CORE_ATTR_VALUE_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/proto/attr_value.pb.h"
#include "tensorflow_ipu/core/proto/node_def.pb.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/core/tensor_shape.h"

namespace tensorflow_ipu {

AttrValue MakeAttrValue(int64_t v);
inline AttrValue MakeAttrValue(int v) { return MakeAttrValue(int64_t{v}); }
AttrValue MakeAttrValue(float v);
AttrValue MakeAttrValue(bool v);
AttrValue MakeAttrValue(DataType v);
AttrValue MakeAttrValue(absl::string_view v);
inline AttrValue MakeAttrValue(const char* v) {
  return MakeAttrValue(absl::string_view(v));
}
AttrValue MakeAttrValue(const TensorShape& v);
AttrValue MakeAttrValue(const Tensor& v);
AttrValue MakeAttrValue(const std::vector<int64_t>& v);
AttrValue MakeAttrValue(const std::vector<DataType>& v);
AttrValue MakeAttrValue(const std::vector<TensorShape>& v);

// The name of the kind of value an AttrValue holds, as op definitions spell
// it: "int", "float", "bool", "type", "string", "shape", "tensor",
// "list(int)", "list(type)", ...; "none" when unset.
std::string AttrValueKind(const AttrValue& value);

// Reads attr `name` of `node` as T. Missing attrs and attrs of another kind
// are InvalidArgument naming the node, the attr and both kinds.
template <typename T>
absl::StatusOr<T> GetNodeAttr(const NodeDef& node, absl::string_view name);

template <>
absl::StatusOr<int64_t> GetNodeAttr<int64_t>(const NodeDef&, absl::string_view);
template <>
absl::StatusOr<float> GetNodeAttr<float>(const NodeDef&, absl::string_view);
template <>
absl::StatusOr<bool> GetNodeAttr<bool>(const NodeDef&, absl::string_view);
template <>
absl::StatusOr<DataType> GetNodeAttr<DataType>(const NodeDef&,
                                               absl::string_view);
template <>
absl::StatusOr<std::string> GetNodeAttr<std::string>(const NodeDef&,
                                                     absl::string_view);
template <>
absl::StatusOr<TensorShape> GetNodeAttr<TensorShape>(const NodeDef&,
                                                     absl::string_view);
template <>
absl::StatusOr<Tensor> GetNodeAttr<Tensor>(const NodeDef&, absl::string_view);
template <>
absl::StatusOr<std::vector<int64_t>> GetNodeAttr<std::vector<int64_t>>(
    const NodeDef&, absl::string_view);
// list(type) and list(shape); an empty list is a valid value of either.
template <>
absl::StatusOr<std::vector<DataType>> GetNodeAttr<std::vector<DataType>>(
    const NodeDef&, absl::string_view);
template <>
absl::StatusOr<std::vector<TensorShape>> GetNodeAttr<std::vector<TensorShape>>(
    const NodeDef&, absl::string_view);

// A short human-readable form for error messages and dumps.
std::string SummarizeAttrValue(const AttrValue& value);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_ATTR_VALUE_UTIL_H_
