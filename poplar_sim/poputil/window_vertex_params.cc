#include "poplar_sim/poputil/window_vertex_params.h"

namespace poplar_sim {
namespace poputil {

WindowVertexParams::WindowVertexParams(Vertex* vertex)
    : inRows_(vertex, "inRows"),
      inCols_(vertex, "inCols"),
      channels_(vertex, "channels"),
      windowRows_(vertex, "windowRows"),
      windowCols_(vertex, "windowCols"),
      strideRows_(vertex, "strideRows"),
      strideCols_(vertex, "strideCols"),
      padTop_(vertex, "padTop"),
      padLeft_(vertex, "padLeft"),
      outCols_(vertex, "outCols") {}

Window2D WindowVertexParams::window() const {
  Window2D w;
  w.inRows = inRows_;
  w.inCols = inCols_;
  w.channels = channels_;
  w.windowRows = windowRows_;
  w.windowCols = windowCols_;
  w.strideRows = strideRows_;
  w.strideCols = strideCols_;
  w.padTop = padTop_;
  w.padLeft = padLeft_;
  w.outCols = outCols_;
  return w;
}

void WindowVertexParams::set(Graph& graph, VertexRef v, const Window2D& w) {
  graph.setInitialValue(v["inRows"], w.inRows);
  graph.setInitialValue(v["inCols"], w.inCols);
  graph.setInitialValue(v["channels"], w.channels);
  graph.setInitialValue(v["windowRows"], w.windowRows);
  graph.setInitialValue(v["windowCols"], w.windowCols);
  graph.setInitialValue(v["strideRows"], w.strideRows);
  graph.setInitialValue(v["strideCols"], w.strideCols);
  graph.setInitialValue(v["padTop"], w.padTop);
  graph.setInitialValue(v["padLeft"], w.padLeft);
  graph.setInitialValue(v["outCols"], w.outCols);
}

}  // namespace poputil
}  // namespace poplar_sim
