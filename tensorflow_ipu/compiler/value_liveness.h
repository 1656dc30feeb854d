// Value liveness over a cluster's ops in emission order, for the emitter's
// choice between aliasing a variable and snapshotting it.
//
// LastUses(ir)[i] is the position of the last op that reads a value of op
// i, with three rules for what runs later than its position says:
//  - an op inside a loop body that reads a value made outside that body
//    reads it in every iteration: the use lasts to the body's last op;
//  - a loop exit's next value (LoopBoundary::kExit: IpuLoopExit) is copied
//    at the end of the body: the same;
//  - a cluster result is streamed to the host after every op: ops.size().
// An op whose values nothing reads gets its own position. The IR must have
// been through LoopFormation (each loop's ops contiguous).
//
//   std::vector<int> last = LastUses(ir);
//   bool live_across = last[i] > write_position;
#ifndef TENSORFLOW_IPU_COMPILER_VALUE_LIVENESS_H_
#define TENSORFLOW_IPU_COMPILER_VALUE_LIVENESS_H_

#include <vector>

#include "tensorflow_ipu/compiler/cluster_ir.h"

namespace tensorflow_ipu {
namespace compiler {

std::vector<int> LastUses(const ClusterIr& ir);

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_VALUE_LIVENESS_H_
