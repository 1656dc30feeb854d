// Which gradient-descent updates of a run the executor takes inside the
// product that makes their gradient: a MatMul whose output the run uses
// only as the gradient (input 2) of one ResourceApplyGradientDescent, as a
// dense layer's weight gradient is used when training with plain SGD. The
// update then adds -alpha * product into the variable in one matrix product
// (core/kernels/gradient_descent_of_product.h) instead of writing the
// gradient to a buffer and reading it back.
//
// A product that is fetched or fed, read by any other node of the run, or
// that another node of the run waits for (a control edge) is left alone,
// as are products and updates of types other than float (the update falls
// back to the two kernels at run time for anything else it cannot do).
#ifndef TENSORFLOW_IPU_RUNTIME_GRADIENT_UPDATE_FUSION_H_
#define TENSORFLOW_IPU_RUNTIME_GRADIENT_UPDATE_FUSION_H_

#include <vector>

#include "tensorflow_ipu/core/graph.h"

namespace tensorflow_ipu {

struct GradientUpdateFusion {
  // Positions in the run's nodes.
  int product = -1;
  int update = -1;
  // The MatMul's transpose attributes.
  bool transpose_a = false;
  bool transpose_b = false;
};

// `nodes`: the nodes the run executes (NeededNodes' result), in order.
std::vector<GradientUpdateFusion> FindGradientUpdateFusions(const std::vector<const Node*>& nodes,
                                                            const std::vector<TensorRef>& feeds,
                                                            const std::vector<TensorRef>& fetches);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_GRADIENT_UPDATE_FUSION_H_
