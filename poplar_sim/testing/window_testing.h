// Test helpers for the window libraries (popnn's pooling, poplin's col2im):
// square windows in one call, and constants spread over all tiles so that
// vertices read across tiles.
#ifndef POPLAR_SIM_TESTING_WINDOW_TESTING_H_
#define POPLAR_SIM_TESTING_WINDOW_TESTING_H_

#include <cstddef>
#include <vector>

#include "poplar_sim/graph.h"
#include "poplar_sim/poputil/window_rows.h"

namespace poplar_sim {
namespace testing {

// Windows window x window moved stride x stride, pad positions before the
// first row and column, over [batch, rows, cols, channels], giving
// outRows x outCols windows.
poputil::Window2D SquareWindow(size_t batch, size_t rows, size_t cols, size_t channels,
                               size_t window, size_t stride, size_t pad, size_t outRows,
                               size_t outCols);

// A constant of `values` (converted to `type`) mapped in equal slices over
// every tile of the graph.
Tensor SpreadConstant(Graph& graph, std::vector<size_t> shape, const std::vector<float>& values,
                      Type type = FLOAT);

}  // namespace testing
}  // namespace poplar_sim

#endif  // POPLAR_SIM_TESTING_WINDOW_TESTING_H_
