// Checks of the programs given to Engine::create before they are compiled:
// no program contains itself, and the programs do not expand to more steps
// than an engine may hold. Internal to poplar_sim.
//
// Program construction (Sequence::add, Switch::add) is constant time, so a
// cycle of programs can be built; it is found here, once, by one iterative
// walk over the distinct nodes (linear in their number, any depth).
#ifndef POPLAR_SIM_PROGRAM_CHECK_H_
#define POPLAR_SIM_PROGRAM_CHECK_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "poplar_sim/program.h"

namespace poplar_sim {
namespace internal {

// A program shared by several parents is compiled (and costed, and
// profiled) once per place it appears in. This bounds the expanded total,
// so that a few kilobytes of programs sharing each other cannot ask for
// 2^60 steps.
inline constexpr uint64_t kMaxProgramSteps = uint64_t{1} << 24;

// The kind of program `kind` is, as errors and profiles name it.
const char* programKindName(program::ProgramNode::Kind kind);

// InvalidArgument if a program contains itself, naming the program whose
// child closes the cycle ("Program 1: the Sequence 'body' contains
// itself..."). Every cycle found is cut (the closing child is removed and
// the program marked closedCycle, so later engines fail too), so that the
// nodes can be freed. ResourceExhausted if the programs expand to more than
// kMaxProgramSteps steps.
absl::Status checkPrograms(const std::vector<program::Program>& programs);

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_PROGRAM_CHECK_H_
