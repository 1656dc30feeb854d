#include "tensorflow_ipu/compiler/input_reuse.h"

#include <algorithm>

#include "tensorflow_ipu/compiler/loop_formation.h"
#include "tensorflow_ipu/core/op_registry.h"

namespace tensorflow_ipu {
namespace compiler {

void InputReuse::NoteValues(int i, const std::vector<poplar_sim::Tensor>& values) {
  for (const poplar_sim::Tensor& t : values) {
    if (!t.valid()) continue;
    for (const poplar_sim::ElementRun& r : t.runs()) {
      if (r.var >= variable_last_use_.size()) variable_last_use_.resize(r.var + 1, -1);
      variable_last_use_[r.var] = std::max(variable_last_use_[r.var], last_use_[i]);
    }
  }
}

bool InputReuse::MayOverwrite(int i, int j, const poplar_sim::Tensor& t,
                              const poplar_sim::Graph& graph) const {
  const ClusterOp& op = ir_.ops[i];
  const int k = op.inputs[j].op;
  const ClusterOp& producer = ir_.ops[k];
  if (last_use_[k] != i) return false;
  if (LoopOf(producer) != LoopOf(op) || producer.accumulation_count != op.accumulation_count ||
      producer.after_update != op.after_update || producer.pipeline_unit >= 0 ||
      op.pipeline_unit >= 0) {
    return false;
  }
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
