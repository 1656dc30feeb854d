#include "tensorflow_ipu/compiler/cross_replica_combining.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/compiler/loop_formation.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

// What must be equal for two reductions to be one: the operator, the
// dtype, the replica groups, and where and when they run.
using GroupKey = std::tuple<std::string, DataType, int64_t, int, std::string, int, int64_t, bool>;

bool IsCrossReplicaReduction(const ClusterOp& op) {
  return (op.op() == "IpuCrossReplicaSum" || op.op() == "IpuCrossReplicaMean") &&
         op.inputs.size() == 1 && op.output_types.size() == 1 && !op.pipeline_invariant &&
         op.def.attr().count("replica_group_size") > 0;
}

GroupKey KeyOf(const ClusterOp& op) {
  return GroupKey(op.op(), op.output_types[0], op.def.attr().at("replica_group_size").i(), op.shard,
                  LoopOf(op), op.pipeline_unit, op.accumulation_count, op.after_update);
}

// The groups of reductions to combine, each in program order: a reduction
// joins the open group of its key unless it depends on a member (through
// any chain of data or control inputs) or would take the group past the
// budget; then the group closes and a new one starts with it.
std::vector<std::vector<int>> FindGroups(const ClusterIr& ir, int64_t budget) {
  struct Open {
    int serial = -1;  // which group, for the dependence sets below
    std::vector<int> members;
    int64_t bytes = 0;
  };
  std::map<GroupKey, Open> open;
  // Whether each group (by serial) is still open.
  std::vector<bool> still_open;
  std::vector<std::vector<int>> groups;
  auto close = [&](Open& g) {
    if (g.serial >= 0) still_open[g.serial] = false;
    if (g.members.size() >= 2) groups.push_back(std::move(g.members));
    g = Open();
  };
  // For each op, the serials of the open groups whose members it depends
  // on. Closed groups are dropped as the sets are merged, so a set holds at
  // most one serial per key (a chain of 100,000 reductions, each reading
  // the one before, stays linear).
  std::vector<std::vector<int>> depends(ir.ops.size());
  for (size_t i = 0; i < ir.ops.size(); ++i) {
    const ClusterOp& op = ir.ops[i];
    std::vector<int>& d = depends[i];
    auto merge = [&](int from) {
      for (int serial : depends[from]) {
        if (still_open[serial]) d.push_back(serial);
      }
    };
    for (const ValueRef& v : op.inputs) merge(v.op);
    for (int c : op.control_inputs) merge(c);
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    if (!IsCrossReplicaReduction(op)) continue;
    // Its bytes, without overflow for any shape: more elements than the
    // budget has bytes is over the budget.
    const int64_t elements = op.output_shapes[0].num_elements();
    const int64_t element_size = DataTypeSize(op.output_types[0]);
    if (elements <= 0 || element_size <= 0 || elements > budget / element_size) continue;
    const int64_t bytes = elements * element_size;
    Open& g = open[KeyOf(op)];
    const bool dependent = g.serial >= 0 && std::binary_search(d.begin(), d.end(), g.serial);
    if (dependent || g.bytes + bytes > budget) close(g);
    if (g.serial < 0) {
      g.serial = static_cast<int>(still_open.size());
      still_open.push_back(true);
    }
    g.members.push_back(static_cast<int>(i));
    g.bytes += bytes;
    d.insert(std::upper_bound(d.begin(), d.end(), g.serial), g.serial);
  }
  for (auto& [key, g] : open) close(g);
  std::sort(groups.begin(), groups.end());  // in program order of first member
  return groups;
}

// A stable topological order: the ready op that came first in `priority`
// order goes first, so the order changes only where the dependencies
// force it.
std::vector<int> StableTopologicalOrder(const ClusterIr& ir, const std::vector<double>& priority) {
  const size_t n = ir.ops.size();
  std::vector<int> waiting(n, 0);
  std::vector<std::vector<int>> readers(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<int> before;
    for (const ValueRef& v : ir.ops[i].inputs) before.push_back(v.op);
    before.insert(before.end(), ir.ops[i].control_inputs.begin(), ir.ops[i].control_inputs.end());
    std::sort(before.begin(), before.end());
    before.erase(std::unique(before.begin(), before.end()), before.end());
    waiting[i] = static_cast<int>(before.size());
    for (int b : before) readers[b].push_back(static_cast<int>(i));
  }
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push({priority[i], static_cast<int>(i)});
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int i = ready.top().second;
    ready.pop();
    order.push_back(i);
    for (int r : readers[i]) {
      if (--waiting[r] == 0) ready.push({priority[r], r});
    }
  }
  return order;
}

}  // namespace

absl::StatusOr<bool> CrossReplicaCombining::Run(ClusterIr* ir) {
  if (budget_bytes_ <= 0 || ir->replication_factor * ir->process_count <= 1) return false;
  const std::vector<std::vector<int>> groups = FindGroups(*ir, budget_bytes_);
  if (groups.empty()) return false;
  const size_t original = ir->ops.size();
  // Where each op goes in the new order, before the dependencies have
  // their say: where it was; a combined op just after its last member.
  std::vector<double> priority(original);
  for (size_t i = 0; i < original; ++i) priority[i] = static_cast<double>(i);
  // The value each member's output becomes.
  std::map<int, ValueRef> replaced;
  for (const std::vector<int>& members : groups) {
    const ClusterOp& first = ir->ops[members.front()];
    NodeDef def;
    def.set_name(absl::StrCat(ir->ops[members.back()].name(), "/combined"));
    def.set_op(kCombinedCrossReplicaOp);
    for (const char* attr : {kLoopAttr, kLoopCountAttr}) {
      auto it = first.def.attr().find(attr);
      if (it != first.def.attr().end()) (*def.mutable_attr())[attr] = it->second;
    }
    (*def.mutable_attr())["reduction"] =
        MakeAttrValue(first.op() == "IpuCrossReplicaMean" ? "mean" : "sum");
    (*def.mutable_attr())["replica_group_size"] = first.def.attr().at("replica_group_size");
    ClusterOp combined;
    combined.def = std::move(def);
    combined.shard = first.shard;
    combined.accumulation_count = first.accumulation_count;
    combined.after_update = first.after_update;
    combined.pipeline_unit = first.pipeline_unit;
    const int index = static_cast<int>(ir->ops.size());
    for (size_t k = 0; k < members.size(); ++k) {
      ClusterOp& m = ir->ops[members[k]];
      combined.inputs.push_back(m.inputs[0]);
      combined.output_types.push_back(m.output_types[0]);
      combined.output_shapes.push_back(m.output_shapes[0]);
      combined.control_inputs.insert(combined.control_inputs.end(), m.control_inputs.begin(),
                                     m.control_inputs.end());
      replaced[members[k]] = ValueRef{index, static_cast<int>(k)};
      // The member waits for the combined op, so what waited for it still
      // waits for its reduction.
      m.def.set_op("NoOp");
      m.inputs.clear();
      m.output_types.clear();
      m.output_shapes.clear();
      m.control_inputs = {index};
    }
    std::sort(combined.control_inputs.begin(), combined.control_inputs.end());
    combined.control_inputs.erase(
        std::unique(combined.control_inputs.begin(), combined.control_inputs.end()),
        combined.control_inputs.end());
    ir->ops.push_back(std::move(combined));
    priority.push_back(static_cast<double>(members.back()) + 0.5);
  }
  // Members have one output each.
  auto rewire = [&](ValueRef& v) {
    auto it = replaced.find(v.op);
    if (it != replaced.end()) v = it->second;
  };
  for (ClusterOp& op : ir->ops) {
    for (ValueRef& v : op.inputs) rewire(v);
  }
  for (ValueRef& r : ir->results) rewire(r);
  const std::vector<int> order = StableTopologicalOrder(*ir, priority);
  if (order.size() != ir->ops.size()) {
    return absl::InternalError(
        absl::StrCat("cluster ", ir->name,
                     ": combining cross-replica reductions made a cycle; the groups' "
                     "members were meant to be independent"));
  }
  ReorderOps(ir, order);
  return true;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
