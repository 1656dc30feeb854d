// The window geometry (poputil::Window2D) as parameters of a vertex, for
// the window libraries' vertices (popnn's pooling, poplin's col2im): one
// declaration of the fields, one place that sets them.
//
//   class MyRowVertex : public MultiVertex {
//     WindowVertexParams geometry{this};
//     bool compute() override { const Window2D w = geometry.window(); ... }
//   };
//   VertexRef v = graph.addVertex(cs, "MyRow<float>", {...});
//   WindowVertexParams::set(graph, v, window);
#ifndef POPLAR_SIM_POPUTIL_WINDOW_VERTEX_PARAMS_H_
#define POPLAR_SIM_POPUTIL_WINDOW_VERTEX_PARAMS_H_

#include "poplar_sim/graph.h"
#include "poplar_sim/poputil/window_rows.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace poputil {

class WindowVertexParams {
 public:
  explicit WindowVertexParams(Vertex* vertex);
  // The geometry but batch and outRows, which no single vertex needs.
  Window2D window() const;
  // Sets the parameters of vertex `v` (made with these fields) to `w`.
  static void set(Graph& graph, VertexRef v, const Window2D& w);

 private:
  Param<unsigned> inRows_, inCols_, channels_, windowRows_, windowCols_, strideRows_,
      strideCols_, padTop_, padLeft_, outCols_;
};

}  // namespace poputil
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPUTIL_WINDOW_VERTEX_PARAMS_H_
