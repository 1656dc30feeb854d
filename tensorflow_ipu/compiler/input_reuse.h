// InputReuse: which inputs of an op its lowering may overwrite with the
// op's result, as XLA's buffer assignment lets an instruction write into
// an operand's buffer that nothing reads afterwards. The cross-replica
// reductions use it to all-reduce gradients in place: on the simulator
// that keeps one copy of every gradient per replica instead of two, and
// the update that follows reads values the reduction has just written.
//
// Input j of op i (the value of op k) may be overwritten when all of this
// holds, and otherwise not:
//  - op i is the value's last reader (value_liveness.h: a value read after
//    the loop or by the host is still live), and no value sharing its
//    memory lives across iterations: one made outside a loop and read in
//    it, one a loop exit reads at the end of the body, or a loop boundary's
//    (each is read again after the body's last op, which may be op i);
//  - op k runs as often as op i: the same loop, the same phase of
//    gradient accumulation, and neither is in a pipeline (whose stages
//    pass values through FIFOs and stashes);
//  - op k computes its value afresh each time: it is not stateful, not a
//    pass-through (Const, Identity, ReadVariableOp), not a variable or its
//    handle, not a loop boundary, not an argument (the engine reads a fed
//    argument from the host's buffer as long as nothing writes it);
//  - none of the value's elements is a constant, a resource variable's
//    tensor, or repeated, and no other value viewing its memory (a
//    reshape, a slice) is read after op i.
//
//   InputReuse reuse(ir, last_use, state);
//   ... after emitting op i: reuse.NoteValues(i, values[i]);
//   bool in_place = reuse.MayOverwrite(i, j, inputs[j], graph);
#ifndef TENSORFLOW_IPU_COMPILER_INPUT_REUSE_H_
#define TENSORFLOW_IPU_COMPILER_INPUT_REUSE_H_

#include <vector>

#include "poplar_sim/graph.h"
#include "poplar_sim/tensor.h"
#include "tensorflow_ipu/compiler/cluster_ir.h"
#include "tensorflow_ipu/compiler/emission_state.h"

namespace tensorflow_ipu {
namespace compiler {

class InputReuse {
 public:
  // `last_use` is LastUses(ir); `state` says which poplar variables hold
  // resource variables. Both must outlive this object.
  InputReuse(const ClusterIr& ir, const std::vector<int>& last_use, const EmissionState& state);

  // Records the poplar variables that the values of op i view, read until
  // last_use[i]. Called after each op is emitted, in emission order.
  void NoteValues(int i, const std::vector<poplar_sim::Tensor>& values);

  // Whether op i may write its result over input j, whose tensor is `t`
  // (false for an op or input index out of range).
  bool MayOverwrite(int i, int j, const poplar_sim::Tensor& t,
                    const poplar_sim::Graph& graph) const;

 private:
  const ClusterIr& ir_;
  const std::vector<int>& last_use_;
  const EmissionState& state_;
  // Per op, whether its values live across the iterations of a loop (see
  // the rules above), whatever last_use says.
  std::vector<bool> lives_across_iterations_;
  // Per poplar variable, the position of the last reader of any value
  // viewing it (-1: none recorded).
  std::vector<int> variable_last_use_;
};

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_INPUT_REUSE_H_
