#include "poplar_sim/testing/window_testing.h"

#include <utility>

namespace poplar_sim {
namespace testing {

poputil::Window2D SquareWindow(size_t batch, size_t rows, size_t cols, size_t channels,
                               size_t window, size_t stride, size_t pad, size_t outRows,
                               size_t outCols) {
  poputil::Window2D w;
  w.batch = batch;
  w.inRows = rows;
  w.inCols = cols;
  w.channels = channels;
  w.windowRows = w.windowCols = window;
  w.strideRows = w.strideCols = stride;
  w.padTop = w.padLeft = pad;
  w.outRows = outRows;
  w.outCols = outCols;
  return w;
}

Tensor SpreadConstant(Graph& graph, std::vector<size_t> shape, const std::vector<float>& values,
                      Type type) {
  Tensor c = graph.addConstant<float>(type, std::move(shape), absl::MakeConstSpan(values));
  const size_t tiles = graph.getTarget().getNumTiles(), n = c.numElements();
  for (size_t tile = 0; tile < tiles; ++tile) {
    graph.setTileMapping(c.flatten().slice(n * tile / tiles, n * (tile + 1) / tiles), tile);
  }
  return c;
}

}  // namespace testing
}  // namespace poplar_sim
