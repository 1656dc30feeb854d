#include "tensorflow_ipu/compiler/cluster_ir.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tensorflow_ipu {
namespace compiler {

const OpDef* ClusterOp::op_def() const {
  absl::StatusOr<const OpDef*> def = OpRegistry::Global()->LookUp(op());
  return def.ok() ? *def : nullptr;
}

int ClusterIr::AddArg(const std::string& tensor_name, DataType dtype,
                      const TensorShape& shape) {
  NodeDef def;
  def.set_name(tensor_name);
  def.set_op(kArgOp);
  int index = AddOp(std::move(def), {}, {dtype}, {shape});
  args.push_back(index);
  return index;
}

int ClusterIr::AddOp(NodeDef def, std::vector<ValueRef> inputs,
                     std::vector<DataType> output_types,
                     std::vector<TensorShape> output_shapes) {
  ClusterOp op;
  op.def = std::move(def);
  op.inputs = std::move(inputs);
  op.output_types = std::move(output_types);
  op.output_shapes = std::move(output_shapes);
  ops.push_back(std::move(op));
  return static_cast<int>(ops.size()) - 1;
}

std::string ClusterIr::ValueName(const ValueRef& v) const {
  const ClusterOp& op = ops[v.op];
  if (op.op() == kArgOp) return op.name();
  return absl::StrCat(op.name(), ":", v.index);
}

std::string ClusterIr::ToString() const {
  std::string out = absl::StrCat("cluster ", name, "\n");
  for (size_t i = 0; i < ops.size(); ++i) {
    const ClusterOp& op = ops[i];
    std::vector<std::string> ins;
    for (const ValueRef& v : op.inputs) {
      ins.push_back(absl::StrCat("%", v.op, ":", v.index));
    }
    std::vector<std::string> outs;
    for (size_t k = 0; k < op.output_types.size(); ++k) {
      outs.push_back(absl::StrCat(DataTypeString(op.output_types[k]),
                                  op.output_shapes[k].DebugString()));
    }
    absl::StrAppend(&out, "%", i, " ", op.name(), " = ", op.op(), "(",
                    absl::StrJoin(ins, ", "), ") -> ",
                    absl::StrJoin(outs, ", "), " shard=", op.shard,
                    op.pipeline_unit >= 0 ? absl::StrCat(" unit=", op.pipeline_unit) : "",
                    op.pipeline_invariant ? " invariant" : "",
                    op.accumulation_count > 0
                        ? absl::StrCat(" every=", op.accumulation_count) : "",
                    op.after_update ? " after-update" : "",
                    "\n");
  }
  std::vector<std::string> res;
  for (const ValueRef& v : results) res.push_back(absl::StrCat("%", v.op, ":", v.index));
  absl::StrAppend(&out, "results (", absl::StrJoin(res, ", "), ")\n");
  return out;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
