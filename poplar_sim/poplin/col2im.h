// col2im: the input gradient of a convolution computed as a product with
// the im2col matrix, folded back onto the input. Each column of the
// gradient of the im2col matrix belongs to one tap of the window; col2im
// adds every tap's values into the input positions that tap read, in one
// compute set (a vertex per input row) rather than one per tap.
//
//   // cols [batch * outRows * outCols, windowRows * windowCols * channels]
//   Tensor dx = poplin::col2im(graph, cols, window, prog);  // [batch, inRows, inCols, channels]
//
// dx[b, y, x, c] is the sum, over the taps (ky, kx) in row-major order, of
// cols[(b, oy, ox), (ky, kx, c)] for the window (oy, ox) whose tap (ky, kx)
// reads (y, x); the sum starts from zero and each addition rounds to the
// element type (float or half), as adding the taps' columns one at a time
// into a zeroed tensor does. Positions no tap reads get zero. Errors are
// recorded in the graph's sticky status.
#ifndef POPLAR_SIM_POPLIN_COL2IM_H_
#define POPLAR_SIM_POPLIN_COL2IM_H_

#include <string>

#include "poplar_sim/graph.h"
#include "poplar_sim/program.h"
#include "poplar_sim/poputil/window_rows.h"

namespace poplar_sim {
namespace poplin {

Tensor col2im(Graph& graph, const Tensor& cols, const poputil::Window2D& window,
              program::Sequence& prog, const std::string& debugName = "");

}  // namespace poplin
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPLIN_COL2IM_H_
