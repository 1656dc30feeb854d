#include "tensorflow_ipu/compiler/inter_ipu_copy_insertion.h"

#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace compiler {

absl::StatusOr<bool> InterIpuCopyInsertion::Run(ClusterIr* ir) {
  // Rebuild the op list so copies sit right before their first reader and
  // the list stays topological.
  std::vector<ClusterOp> old_ops = std::move(ir->ops);
  ir->ops.clear();
  std::vector<int> new_index(old_ops.size());
  std::map<std::tuple<int, int, int>, int> copies;  // (op, index, shard)
  bool changed = false;
  for (size_t i = 0; i < old_ops.size(); ++i) {
    ClusterOp op = std::move(old_ops[i]);
    for (int& c : op.control_inputs) c = new_index[c];
    for (ValueRef& v : op.inputs) {
      v.op = new_index[v.op];
      const ClusterOp& producer = ir->ops[v.op];
      if (producer.shard == op.shard) continue;
      auto key = std::make_tuple(v.op, v.index, op.shard);
      auto it = copies.find(key);
      if (it == copies.end()) {
        NodeDef def;
        def.set_name(absl::StrCat(producer.name(), "/copy_", v.index,
                                  "_to_ipu_", op.shard));
        def.set_op(kInterIpuCopyOp);
        // A copy between two ops of one loop body runs in every iteration.
        auto pl = producer.def.attr().find(kLoopAttr);
        auto cl = op.def.attr().find(kLoopAttr);
        if (pl != producer.def.attr().end() && cl != op.def.attr().end() &&
            pl->second.s() == cl->second.s()) {
          (*def.mutable_attr())[kLoopAttr] = pl->second;
          (*def.mutable_attr())[kLoopCountAttr] =
              producer.def.attr().at(kLoopCountAttr);
        }
        ClusterOp copy;
        copy.def = std::move(def);
        copy.inputs = {v};
        copy.output_types = {producer.output_types[v.index]};
        copy.output_shapes = {producer.output_shapes[v.index]};
        copy.shard = op.shard;
        ir->ops.push_back(std::move(copy));
        it = copies.emplace(key, static_cast<int>(ir->ops.size()) - 1).first;
        changed = true;
      }
      v = ValueRef{it->second, 0};
    }
    ir->ops.push_back(std::move(op));
    new_index[i] = static_cast<int>(ir->ops.size()) - 1;
  }
  for (int& a : ir->args) a = new_index[a];
  for (ValueRef& r : ir->results) r.op = new_index[r.op];
  return changed;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
