// popnn max pooling over NHWC tensors, and its input gradient, as Poplar's
// popnn::pooling does it: one compute set each, whose vertices read the
// input rows of their windows in place (no padded copy, no per-tap views).
//
//   popnn::MaxPoolParams p;
//   p.batch = 64; p.inRows = p.inCols = 28; p.channels = 32;
//   p.windowRows = p.windowCols = 2; p.strideRows = p.strideCols = 2;
//   p.outRows = p.outCols = 14;
//   Tensor y = popnn::maxPool(graph, x, p, prog);
//   Tensor dx = popnn::maxPoolInputGradient(graph, x, dy, p, prog);
//
// Padding positions are not part of a window (a window must hold at least
// one input position). maxPool keeps the first maximum of a window in
// row-major order and compares with `>`, so a NaN that comes first wins and
// a later one never does. maxPoolInputGradient routes each gradient value
// to the first maximum of its window, recomputed from the input, and adds
// overlapping windows' values in window order, in float for half tensors:
// bit for bit what the CPU kernels of MaxPool and MaxPoolGrad compute.
// Errors are recorded in the graph's sticky status.
#ifndef POPLAR_SIM_POPNN_POOLING_H_
#define POPLAR_SIM_POPNN_POOLING_H_

#include <cstddef>
#include <string>

#include "poplar_sim/graph.h"
#include "poplar_sim/program.h"
#include "poplar_sim/poputil/window_rows.h"

namespace poplar_sim {
namespace popnn {

// The input [batch, inRows, inCols, channels], the windows and the output
// [batch, outRows, outCols, channels].
using MaxPoolParams = poputil::Window2D;

// The [batch, outRows, outCols, channels] maxima of `in` (float or half).
Tensor maxPool(Graph& graph, const Tensor& in, const MaxPoolParams& params,
               program::Sequence& prog, const std::string& debugName = "");

// The gradient with respect to `in` from the gradient of maxPool's output,
// `outGradient` [batch, outRows, outCols, channels] of in's type.
Tensor maxPoolInputGradient(Graph& graph, const Tensor& in, const Tensor& outGradient,
                            const MaxPoolParams& params, program::Sequence& prog,
                            const std::string& debugName = "");

}  // namespace popnn
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPNN_POOLING_H_
