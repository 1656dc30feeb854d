#include "tensorflow_ipu/compiler/input_reuse.h"

#include <algorithm>
#include <limits>
#include <string>

#include "tensorflow_ipu/compiler/loop_formation.h"
#include "tensorflow_ipu/core/op_registry.h"

namespace tensorflow_ipu {
namespace compiler {

namespace {

bool IsLoopBoundary(const ClusterOp& op) {
  const OpDef* def = op.op_def();
  return def != nullptr && def->loop_boundary != LoopBoundary::kNone;
}

}  // namespace

InputReuse::InputReuse(const ClusterIr& ir, const std::vector<int>& last_use,
                       const EmissionState& state)
    : ir_(ir), last_use_(last_use), state_(state), lives_across_iterations_(ir.ops.size()) {
  // LastUses ends such a value's use at the body's last op, which may be
  // the op that would overwrite it; the next iteration (or the exit's copy
  // at the end of the body) still reads it.
  std::vector<std::string> loop_of(ir.ops.size());
  for (size_t i = 0; i < ir.ops.size(); ++i) loop_of[i] = LoopOf(ir.ops[i]);
  for (size_t j = 0; j < ir.ops.size(); ++j) {
    const bool boundary = IsLoopBoundary(ir.ops[j]);
    if (boundary) lives_across_iterations_[j] = true;
    for (const ValueRef& in : ir.ops[j].inputs) {
      if (boundary || (!loop_of[j].empty() && loop_of[in.op] != loop_of[j])) {
        lives_across_iterations_[in.op] = true;
      }
    }
  }
}

void InputReuse::NoteValues(int i, const std::vector<poplar_sim::Tensor>& values) {
  const int live_until =
      lives_across_iterations_[i] ? std::numeric_limits<int>::max() : last_use_[i];
  for (const poplar_sim::Tensor& t : values) {
    if (!t.valid()) continue;
    for (const poplar_sim::ElementRun& r : t.runs()) {
      if (r.var >= variable_last_use_.size()) variable_last_use_.resize(r.var + 1, -1);
      variable_last_use_[r.var] = std::max(variable_last_use_[r.var], live_until);
    }
  }
}

bool InputReuse::MayOverwrite(int i, int j, const poplar_sim::Tensor& t,
                              const poplar_sim::Graph& graph) const {
  if (i < 0 || i >= static_cast<int>(ir_.ops.size())) return false;
  const ClusterOp& op = ir_.ops[i];
  if (j < 0 || j >= static_cast<int>(op.inputs.size())) return false;
  const int k = op.inputs[j].op;
  const ClusterOp& producer = ir_.ops[k];
  if (last_use_[k] != i || lives_across_iterations_[k]) return false;
  if (LoopOf(producer) != LoopOf(op) || producer.accumulation_count != op.accumulation_count ||
      producer.after_update != op.after_update || producer.pipeline_unit >= 0 ||
      op.pipeline_unit >= 0) {
    return false;
  }
  // An argument's tensor is filled by its stream each run; written by
  // nothing else, the engine lends it the host's fed buffer instead of
  // copying it in (poplar_sim/engine_borrowed_records.cc), which a write
  // would prevent (and the copy costs more than the new tensor saves).
  if (producer.op() == kArgOp) return false;
  const OpDef* def = producer.op_def();
  if (def == nullptr || def->is_stateful || def->passes_through || def->is_resource_handle ||
      def->is_reference_variable || def->loop_boundary != LoopBoundary::kNone) {
    return false;
  }
  if (!t.valid() || t.containsAliases() || graph.containsConstant(t)) return false;
  for (const poplar_sim::ElementRun& r : t.runs()) {
    if (state_.ResourceOfPoplarVariable(r.var) >= 0) return false;
    if (r.var < variable_last_use_.size() && variable_last_use_[r.var] > i) return false;
  }
  return true;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
