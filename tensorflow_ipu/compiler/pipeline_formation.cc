#include "tensorflow_ipu/compiler/pipeline_formation.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/compiler/loop_formation.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

int64_t IntAttr(const ClusterOp& op, const char* name, int64_t fallback) {
  auto it = op.def.attr().find(name);
  return it == op.def.attr().end() ? fallback : it->second.i();
}

bool BoolAttr(const ClusterOp& op, const char* name) {
  auto it = op.def.attr().find(name);
  return it != op.def.attr().end() && it->second.b();
}

absl::Status CheckDepth(const PipelineTimetable& t) {
  const int64_t overlap = t.overlap();
  const char* kNames =
      ". This number might be called `gradient_accumulation_count`, "
      "`gradient_accumulation_steps_per_replica` or `steps_per_execution` depending "
      "on the API used.";
  if (t.depth() < overlap) {
    return absl::FailedPreconditionError(absl::StrCat(
        "The number of iterations of the pipeline must be at least ", overlap,
        ", but it is ", t.depth(), kNames));
  }
  if (t.depth() % overlap != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "The number of iterations of the pipeline must be a multiple of ", overlap,
        ", but it is ", t.depth(), kNames));
  }
  return absl::OkStatus();
}

// Assigns the units of the ops `body` (indices in order) of one pipelined
// loop and checks them.
absl::Status FormPipeline(ClusterIr* ir, const std::vector<int>& body,
                          const PipelineTimetable& t) {
  std::set<int> in_body(body.begin(), body.end());
  auto pipelined = [&](int op) {
    return in_body.count(op) > 0 && ir->ops[op].accumulation_count == 0;
  };
  // Forward in topological order: a stage's ops, then the rest by their
  // latest input. Inter-IPU copies and ops without inputs in the pipeline
  // are left for the backward sweep.
  for (int i : body) {
    ClusterOp& op = ir->ops[i];
    if (op.accumulation_count > 0) continue;
    const int64_t stage = IntAttr(op, kPipelineStageAttr, -1);
    if (stage >= 0) {
      op.pipeline_unit = t.Unit(static_cast<int>(stage), BoolAttr(op, kPipelineBackwardAttr));
      continue;
    }
    if (op.op() == kInterIpuCopyOp) continue;
    // Stage 0 takes the infeed's elements (as the vendor's pipeline does),
    // so all components of one element are read in the same slot.
    if (op.op() == "IpuInfeedDequeue") {
      op.pipeline_unit = t.Unit(0, false);
      continue;
    }
    int unit = -1;
    auto consider = [&](int producer) {
      if (!pipelined(producer)) return;
      const int u = ir->ops[producer].pipeline_unit;
      if (u >= 0 && (unit < 0 || t.Position(u) > t.Position(unit))) unit = u;
    };
    for (const ValueRef& v : op.inputs) consider(v.op);
    for (int c : op.control_inputs) consider(c);
    op.pipeline_unit = unit;
  }
  // Backward: the rest join their first reader.
  std::map<int, std::vector<int>> readers;  // op -> the body ops that read it
  for (int j : body) {
    for (const ValueRef& v : ir->ops[j].inputs) readers[v.op].push_back(j);
    for (int c : ir->ops[j].control_inputs) readers[c].push_back(j);
  }
  for (auto it = body.rbegin(); it != body.rend(); ++it) {
    ClusterOp& op = ir->ops[*it];
    if (op.accumulation_count > 0 || op.pipeline_unit >= 0) continue;
    int unit = -1;
    for (int j : readers[*it]) {
      const ClusterOp& reader = ir->ops[j];
      if (!pipelined(j) || reader.pipeline_unit < 0) continue;
      if (unit < 0 || t.Position(reader.pipeline_unit) < t.Position(unit)) {
        unit = reader.pipeline_unit;
      }
    }
    op.pipeline_unit = unit < 0 ? 0 : unit;
  }
  // Values flow forward in time only.
  for (int i : body) {
    const ClusterOp& op = ir->ops[i];
    if (op.pipeline_unit < 0) continue;
    for (const ValueRef& v : op.inputs) {
      if (!pipelined(v.op)) continue;
      const ClusterOp& producer = ir->ops[v.op];
      if (t.Position(producer.pipeline_unit) > t.Position(op.pipeline_unit)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Pipeline: op '", op.name(), "' (", op.op(), ") in the ",
            t.UnitName(op.pipeline_unit), " uses '", producer.name(),
            "', which the ", t.UnitName(producer.pipeline_unit),
            " computes later for the same micro-batch; a stage can only use what "
            "earlier stages return (pass the value on as a stage output)"));
      }
    }
  }
  // Values that every micro-batch shares: constants, reads of variables
  // the pipeline does not write (the weight update writes them after it),
  // and stateless ops of those.
  std::set<int> written;  // handle ops of variables written in the units
  for (int i : body) {
    const ClusterOp& op = ir->ops[i];
    const OpDef* def = op.op_def();
    if (op.pipeline_unit < 0 || def == nullptr) continue;
    for (int j = 0; j < static_cast<int>(op.inputs.size()); ++j) {
      if (def->WritesVariable(j)) written.insert(op.inputs[j].op);
    }
  }
  for (int i : body) {
    ClusterOp& op = ir->ops[i];
    const OpDef* def = op.op_def();
    if (op.pipeline_unit < 0 || def == nullptr || def->is_stateful) {
      // A read of a variable is stateful only in name: it is invariant if
      // nothing in the pipeline writes the variable.
      if (op.pipeline_unit < 0 || op.op() != "ReadVariableOp" ||
          written.count(op.inputs[0].op) > 0) {
        continue;
      }
    }
    bool invariant = true;
    for (const ValueRef& v : op.inputs) {
      const ClusterOp& producer = ir->ops[v.op];
      if (in_body.count(v.op) == 0) continue;  // from outside the loop
      invariant &= producer.pipeline_invariant || producer.output_types[v.index] == DT_RESOURCE;
    }
    op.pipeline_invariant = invariant;
  }
  // Stages that share a variable must share an IPU: the variable lives on
  // one IPU and an op on it runs there.
  std::map<int, std::pair<int, int64_t>> first_user;  // handle -> (op, IPU)
  for (int i : body) {
    const ClusterOp& op = ir->ops[i];
    const int64_t stage = IntAttr(op, kPipelineStageAttr, -1);
    const int64_t ipu = IntAttr(op, kShardAttr, -1);
    if (stage < 0 || ipu < 0) continue;
    for (const ValueRef& v : op.inputs) {
      if (ir->type(v) != DT_RESOURCE) continue;
      auto [it, inserted] = first_user.emplace(v.op, std::make_pair(i, ipu));
      if (inserted || it->second.second == ipu) continue;
      const ClusterOp& other = ir->ops[it->second.first];
      return absl::InvalidArgumentError(absl::StrCat(
          "Pipeline: variable '", ir->ops[v.op].name(), "' is used by stage ",
          IntAttr(other, kPipelineStageAttr, -1), " (op '", other.name(), "', on IPU ",
          it->second.second, ") and by stage ", stage, " (op '", op.name(),
          "', on IPU ", ipu, "); stages that share a variable must be mapped to the "
          "same IPU (device_mapping)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> PipelineFormation::Run(ClusterIr* ir) {
  // A loop is a pipeline if its ops say so; its body also holds the ops
  // the compiler added (inter-IPU copies), which only carry the loop id.
  std::map<std::string, std::vector<int>> loops;
  std::map<std::string, int> marked;  // pipelined loop -> an op that says so
  for (int i = 0; i < static_cast<int>(ir->ops.size()); ++i) {
    const std::string loop = LoopOf(ir->ops[i]);
    if (loop.empty()) continue;
    loops[loop].push_back(i);
    if (IntAttr(ir->ops[i], kPipelineDepthAttr, 0) > 0) marked.emplace(loop, i);
  }
  bool changed = false;
  for (const auto& [loop, marker] : marked) {
    const std::vector<int>& body = loops[loop];
    const ClusterOp& first = ir->ops[marker];
    bool training = false;
    for (int i : body) training |= BoolAttr(ir->ops[i], kPipelineBackwardAttr);
    const PipelineTimetable t(
        static_cast<PipelineScheduleKind>(IntAttr(first, kPipelineScheduleAttr, 0)),
        static_cast<int>(IntAttr(first, kPipelineStagesAttr, 0)), training,
        IntAttr(first, kPipelineDepthAttr, 0));
    RETURN_IF_ERROR(CheckDepth(t));
    if (t.kind() == PipelineScheduleKind::kSequential) continue;
    RETURN_IF_ERROR(FormPipeline(ir, body, t));
    ir->pipelines.emplace(loop, t);
    changed = true;
  }
  return changed;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
