// Which nodes of a run have the same value on every run, so that the
// executor computes them once, when it is built: nodes of pure ops
// (Const, the shape ops, reshapes, element-wise arithmetic, ...) without
// control inputs whose every input is such a node's output; and the ops
// that read only their input's shape (OnesLike, ZerosLike, Shape, Size,
// Rank), whatever the input, when its static shape is fully defined. This
// is TensorFlow's constant folding (grappler's ConstantFolding, which
// also turns static shapes into constants): a training step's gradient
// seed (OnesLike of the loss, its reshapes and scalings) and learning
// rates cost nothing per step.
//
//   for (const ConstantFold& f : FindConstantFolds(nodes, feeds)) { ... }
#ifndef TENSORFLOW_IPU_RUNTIME_CONSTANT_FOLDING_H_
#define TENSORFLOW_IPU_RUNTIME_CONSTANT_FOLDING_H_

#include <vector>

#include "tensorflow_ipu/core/graph.h"

namespace tensorflow_ipu {

struct ConstantFold {
  // The node's position in the run's nodes.
  int position = -1;
  // Its inputs read for their shape only (input indices): their values are
  // not constant, and the executor checks at run time that they have the
  // static shape the value was computed for.
  std::vector<int> shape_inputs;
};

// `nodes`: the nodes the run executes (NeededNodes' result), in order; a
// node comes after every node it reads. Fed tensors are never constant.
std::vector<ConstantFold> FindConstantFolds(const std::vector<const Node*>& nodes,
                                            const std::vector<TensorRef>& feeds);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_CONSTANT_FOLDING_H_
