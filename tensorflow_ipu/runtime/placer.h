// Placement: on which device each node of a run executes.
//
// Rules (DESIGN.md, "Placement rules"):
//  - Host-only ops (OpDef::is_host_only: placeholders), nodes marked for
//    outside compilation (kOutsideCompilationAttr) and nodes with no device
//    or a CPU device run on the host.
//  - An op that takes a variable (a resource handle, or a reference
//    variable it writes: OpDef::variable_writes) is placed with it. A
//    reference variable (OpDef::is_reference_variable) asked on an IPU is
//    TensorFlow's "no supported kernel for IPU devices" error.
//  - A node that requests /device:IPU:k runs on IPU device k. Without a
//    configured IPU system that is a FailedPrecondition saying to call
//    configure_ipu_system; k beyond the configured devices is an
//    InvalidArgument naming the node, k and the count; an op with no IPU
//    lowering is an InvalidArgument naming the node and the op.
//
//   PlacementEnv env = PlacementEnv::FromIpuSupport();
//   ASSIGN_OR_RETURN(Placement p, PlaceNodes(needed_nodes, env));
//   p.at(node->id()).on_ipu
#ifndef TENSORFLOW_IPU_RUNTIME_PLACER_H_
#define TENSORFLOW_IPU_RUNTIME_PLACER_H_

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/graph.h"

namespace tensorflow_ipu {

struct NodePlacement {
  bool on_ipu = false;
  int ipu_ordinal = 0;  // /device:IPU:<ipu_ordinal> when on_ipu
};

// Node id -> placement. A table indexed by node id (ids are dense): placing
// a 100k-node graph in a hash map grew as n^1.3 from cache misses.
class Placement {
 public:
  // The placement of node `id`, created on the host if it has none yet.
  NodePlacement& operator[](int id) {
    const size_t i = static_cast<size_t>(id);
    if (i >= nodes_.size()) {
      const size_t size = std::max(i + 1, 2 * nodes_.size());
      nodes_.resize(size);
      placed_.resize(size, false);
    }
    placed_[i] = true;
    return nodes_[i];
  }
  // The placement of node `id`, or nullptr if it has none.
  const NodePlacement* Find(int id) const {
    const size_t i = static_cast<size_t>(id);
    return i < placed_.size() && placed_[i] ? &nodes_[i] : nullptr;
  }
  // The placement of node `id`; a node without one runs on the host.
  const NodePlacement& at(int id) const {
    static const NodePlacement kHost;
    const NodePlacement* p = Find(id);
    return p != nullptr ? *p : kHost;
  }

 private:
  std::vector<NodePlacement> nodes_;
  std::vector<bool> placed_;
};

// What placement needs to know about the process's IPUs.
struct PlacementEnv {
  bool ipu_configured = false;
  int num_ipu_devices = 0;
  std::function<bool(absl::string_view op)> has_ipu_lowering;

  // What the linked IPU path says (runtime/ipu_support.h); no IPUs when the
  // program links none.
  static PlacementEnv FromIpuSupport();
};

// True if any of `nodes` asks for an IPU (cheap: lets a CPU-only run skip
// partitioning altogether).
bool AnyNodeRequestsIpu(const std::vector<const Node*>& nodes);

absl::StatusOr<Placement> PlaceNodes(const std::vector<const Node*>& nodes,
                                     const PlacementEnv& env);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_PLACER_H_
