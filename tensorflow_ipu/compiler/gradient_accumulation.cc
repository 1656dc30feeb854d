#include "tensorflow_ipu/compiler/gradient_accumulation.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/compiler/loop_formation.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

int64_t MarkOf(const ClusterOp& op) {
  auto it = op.def.attr().find(kGradientAccumulationAttr);
  return it == op.def.attr().end() ? 0 : it->second.i();
}

// ipu_stateful_gradient_accumulate with verify_usage: its sum may reach
// only ops that write variables (an optimizer's update), possibly through
// casts, scalings and cross-replica reductions.
absl::Status VerifyUsage(const ClusterIr& ir) {
  static const std::set<std::string>* passes = new std::set<std::string>{
      "Identity", "Cast", "Mul", "RealDiv", "IpuCrossReplicaSum", "IpuCrossReplicaMean"};
  std::vector<std::vector<int>> readers(ir.ops.size());
  for (int i = 0; i < static_cast<int>(ir.ops.size()); ++i) {
    for (const ValueRef& v : ir.ops[i].inputs) readers[v.op].push_back(i);
  }
  for (int i = 0; i < static_cast<int>(ir.ops.size()); ++i) {
    const ClusterOp& op = ir.ops[i];
    auto it = op.def.attr().find(kStatefulGradientAccumulateAttr);
    if (it == op.def.attr().end() || !it->second.b()) continue;
    std::vector<int> stack = readers[i];
    while (!stack.empty()) {
      const ClusterOp& reader = ir.ops[stack.back()];
      const int r = stack.back();
      stack.pop_back();
      const OpDef* def = reader.op_def();
      bool writes = false;
      for (int j = 0; def != nullptr && j < static_cast<int>(reader.inputs.size()); ++j) {
        writes |= def->WritesVariable(j);
      }
      if (writes) continue;
      if (passes->count(reader.op()) > 0 || reader.op() == kInterIpuCopyOp) {
        stack.insert(stack.end(), readers[r].begin(), readers[r].end());
        continue;
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "The ", op.name(), " op (ipu_stateful_gradient_accumulate) must only be used by the "
          "weight update of an optimizer, but '", reader.name(), "' (", reader.op(),
          ") uses its output; pass verify_usage=false to use the accumulated sum elsewhere"));
    }
  }
  return absl::OkStatus();
}

// An op that would have to run both once per update (it is part of the
// update or reads its values) and every mini-batch after it.
absl::Status MixedPhases(const ClusterIr& ir, int op, int update, int after, int64_t count) {
  const ClusterOp& o = ir.ops[op];
  return absl::FailedPreconditionError(absl::StrCat(
      "Op '", o.name(), "' (", o.op(), ") belongs to the gradient accumulation update, which "
      "runs once every ", count, " mini batches (through '", ir.ops[update].name(),
      "'), but depends on '", ir.ops[after].name(), "' (", ir.ops[after].op(),
      "), which waits for the update and runs every mini batch; make it depend on one of "
      "the two only"));
}

// A pipeline runs its micro-batches through the stages and then the update;
// nothing of a micro-batch can follow the update.
absl::Status WaitsInPipeline(const ClusterIr& ir, int op, int waited) {
  const ClusterOp& o = ir.ops[op];
  return absl::FailedPreconditionError(absl::StrCat(
      "Op '", o.name(), "' (", o.op(), ") in a pipeline waits for the pipeline's weight "
      "update (through '", ir.ops[waited].name(), "' (", ir.ops[waited].op(),
      ")) without reading its values; in a pipeline nothing of a micro-batch can run after "
      "the update: remove the control dependency"));
}

}  // namespace

absl::StatusOr<bool> GradientAccumulation::Run(ClusterIr* ir) {
  const int n = static_cast<int>(ir->ops.size());
  // The count of each loop's update, checked against the loop.
  std::map<std::string, int64_t> count_of_loop;
  for (const ClusterOp& op : ir->ops) {
    const int64_t mark = MarkOf(op);
    if (mark == 0) continue;
    const std::string loop = LoopOf(op);
    if (mark < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Op '", op.name(), "' has a gradient accumulation count of ", mark,
          "; it must be positive"));
    }
    if (loop.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Detected a gradient accumulation operation ('", op.name(), "') with ", mark,
          " number of mini batches which is not inside a training loop; build the "
          "optimizer's minimize inside the body of ipu::loops::repeat"));
    }
    const int64_t iterations = LoopCountOf(op);
    if (iterations % mark != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Detected a gradient accumulation operation ('", op.name(), "') with ", mark,
          " number of mini batches inside a loop with ", iterations,
          " iterations; the loop's iterations must be a multiple of the number of "
          "mini batches"));
    }
    auto [it, inserted] = count_of_loop.emplace(loop, mark);
    if (!inserted && it->second != mark) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Loop ", loop, " accumulates gradients over both ", it->second, " and ", mark,
          " mini batches (op '", op.name(), "'); use one gradient accumulation count per "
          "loop"));
    }
  }
  if (count_of_loop.empty()) return false;
  RETURN_IF_ERROR(VerifyUsage(*ir));

  // The update phase: marked ops and the loop's ops that read their values.
  // After it: the ops that only wait for it (header).
  for (int i = 0; i < n; ++i) {
    ClusterOp& op = ir->ops[i];
    auto it = count_of_loop.find(LoopOf(op));
    if (it == count_of_loop.end()) continue;
    int update_source = MarkOf(op) != 0 ? i : -1;  // an update op it is or reads
    int waited = -1;                                // an update op it waits for
    int after_source = -1;                          // an after-update op it depends on
    // A NoOp does nothing, so running it less often loses nothing: one that
    // waits for the update (the loop's body_end) joins it unless it also
    // waits for an op after it.
    const bool no_op = op.op() == "NoOp";
    for (const ValueRef& v : op.inputs) {
      if (ir->ops[v.op].accumulation_count > 0) update_source = v.op;
      if (ir->ops[v.op].after_update) after_source = v.op;
    }
    for (int c : op.control_inputs) {
      if (ir->ops[c].accumulation_count > 0) (no_op ? update_source : waited) = c;
      if (ir->ops[c].after_update) after_source = c;
    }
    if (no_op && MarkOf(op) == 0 && after_source >= 0) {
      op.after_update = true;
    } else if (update_source >= 0) {
      if (after_source >= 0) return MixedPhases(*ir, i, update_source, after_source, it->second);
      op.accumulation_count = it->second;
    } else if (waited >= 0 || after_source >= 0) {
      if (op.def.attr().find(kPipelineDepthAttr) != op.def.attr().end()) {
        return WaitsInPipeline(*ir, i, waited >= 0 ? waited : after_source);
      }
      op.after_update = true;
    }
  }
  // Within each loop's run of ops (contiguous after loop formation), the
  // body first, then the update, then what follows it; each keeps its
  // order, so the result is still topological (no body op depends on a
  // later phase, and no update op on an after-update op).
  std::vector<int> order;
  order.reserve(n);
  auto phase = [&](int i) {
    return ir->ops[i].accumulation_count > 0 ? 1 : ir->ops[i].after_update ? 2 : 0;
  };
  for (int begin = 0; begin < n;) {
    int end = begin + 1;
    const std::string loop = LoopOf(ir->ops[begin]);
    while (end < n && LoopOf(ir->ops[end]) == loop) ++end;
    for (int p = 0; p < 3; ++p) {
      for (int i = begin; i < end; ++i) {
        if (phase(i) == p) order.push_back(i);
      }
    }
    begin = end;
  }
  ReorderOps(ir, order);
  return true;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
