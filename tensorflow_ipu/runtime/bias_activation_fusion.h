// Which dense layers of a run the executor computes as one kernel run: a
// MatMul whose output the run uses only as input 0 of one BiasAdd, and that
// BiasAdd's output used only by one Relu (or by anything, when there is no
// such Relu: then MatMul and BiasAdd alone are fused). The last node of the
// chain computes relu(op(a) op(b) + bias) into its own output
// (core/kernels/matmul_bias_activation.h), as TensorFlow's CPU graph
// optimizer rewrites the chain into one _FusedMatMul node.
//
// A MatMul or BiasAdd output that is fetched or fed, read by any other node
// of the run, or that another node waits for (a control edge) keeps its
// node, as do chains of types other than float (the fused run falls back to
// the kernels at run time for anything else it cannot do).
#ifndef TENSORFLOW_IPU_RUNTIME_BIAS_ACTIVATION_FUSION_H_
#define TENSORFLOW_IPU_RUNTIME_BIAS_ACTIVATION_FUSION_H_

#include <vector>

#include "tensorflow_ipu/core/graph.h"

namespace tensorflow_ipu {

struct BiasActivationFusion {
  // Positions in the run's nodes; relu is -1 when only MatMul and BiasAdd
  // are fused.
  int product = -1;
  int bias_add = -1;
  int relu = -1;
  // The MatMul's transpose attributes.
  bool transpose_a = false;
  bool transpose_b = false;
};

// `nodes`: the nodes the run executes (NeededNodes' result), in order.
std::vector<BiasActivationFusion> FindBiasActivationFusions(const std::vector<const Node*>& nodes,
                                                            const std::vector<TensorRef>& feeds,
                                                            const std::vector<TensorRef>& fetches);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_BIAS_ACTIVATION_FUSION_H_
