#include "poplar_sim/poputil/vertex_layout.h"

#include "poplar_sim/poputil/tile_mapping.h"

namespace poplar_sim {
namespace poputil {

ComputeSet addPerTileVertices(Graph& graph, const PerTileVertices& spec,
                              program::Sequence& prog) {
  ComputeSet cs = graph.addComputeSet(spec.computeSetName);
  const int64_t unit = static_cast<int64_t>(spec.unitSize);
  forEachTileInterval(graph, spec.mapping, [&](unsigned tile, Interval iv) {
    // Units partly on this tile belong to the tile holding their start.
    const int64_t b = (iv.begin + unit - 1) / unit;
    const int64_t e = (iv.end + unit - 1) / unit;
    if (e <= b) return;
    std::vector<std::pair<std::string, Tensor>> conns;
    conns.reserve(spec.fields.size() + spec.wholeFields.size());
    for (const auto& [name, t] : spec.fields) {
      // A slice of a vector is already flat: no second view.
      Tensor piece = t.slice(b, e, 0);
      conns.emplace_back(name, piece.rank() == 1 ? std::move(piece) : piece.flatten());
    }
    for (const auto& [name, t] : spec.wholeFields) conns.emplace_back(name, t.flatten());
    VertexRef v = graph.addVertex(cs, spec.vertexType, conns);
    for (const auto& [name, value] : spec.params) {
      graph.setInitialValue(v[name], value);
    }
    for (const std::string& p : spec.unitOffsetParams) {
      graph.setInitialValue(v[p], static_cast<double>(b));
    }
    graph.setTileMapping(v, tile);
  });
  if (spec.bulk) graph.setBulkExecutor(cs, spec.bulk);
  prog.add(program::Execute(cs));
  return cs;
}

}  // namespace poputil
}  // namespace poplar_sim
