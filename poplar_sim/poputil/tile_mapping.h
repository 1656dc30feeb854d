// poputil: tile-mapping helpers used by every library (poputil::*).
//
//   Tensor w = graph.addVariable(FLOAT, {1024, 1024}, "w");
//   poputil::mapTensorLinearly(graph, w);          // spread over all tiles
//   poputil::mapTensorLinearly(graph, rows, 0, 128); // keep rows of 128 whole
//   poputil::forEachTileInterval(graph, w, [](unsigned tile, Interval iv) {..});
#ifndef POPLAR_SIM_POPUTIL_TILE_MAPPING_H_
#define POPLAR_SIM_POPUTIL_TILE_MAPPING_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "poplar_sim/graph.h"
#include "poplar_sim/program.h"
#include "poplar_sim/tensor.h"

namespace poplar_sim {
namespace poputil {

// Per tile, the intervals of a linear mapping of `numElements` elements:
// contiguous chunks of whole grains, at least `minElementsPerTile` per used
// tile (0 = no minimum), spread as evenly as possible over consecutive tiles
// from tile `offset` (modulo the tile count: the chunks wrap round to tile 0).
TileToTensorMapping calcLinearTileMapping(const Graph& graph,
                                          size_t numElements,
                                          unsigned minElementsPerTile = 0,
                                          unsigned grainSize = 1,
                                          unsigned offset = 0);

// Maps `t` (in row-major order) with calcLinearTileMapping. A tensor too
// small to use every tile starts at linearMappingOffset(graph, t), not at
// tile 0, so that many small tensors do not all pile onto the first tiles.
void mapTensorLinearly(Graph& graph, const Tensor& t,
                       unsigned minElementsPerTile = 0,
                       unsigned grainSize = 1);

// Where mapTensorLinearly starts a tensor that uses `usedTiles` tiles: tile
// (v * usedTiles) mod the tile count, v the id of the variable holding t's
// first element. The graph's first variable starts at tile 0, and tensors of
// one size made one after another take the following tiles in turn, as if
// each started where the previous one ended. It depends on nothing but the
// tensor, so a graph built twice is mapped twice the same way.
unsigned linearMappingOffset(const Graph& graph, const Tensor& t, size_t usedTiles);

// Calls f(tile, interval) for each interval of t's flattened elements that
// lives on one tile of `graph` (tiles of the graph, not global ids).
void forEachTileInterval(const Graph& graph, const Tensor& t,
                         const std::function<void(unsigned, Interval)>& f);

// A new variable with t's shape, type and mapping, plus a Copy from t.
Tensor duplicate(Graph& graph, const Tensor& t, program::Sequence& prog,
                 const std::string& debugName = "");

// Maps `t`, flattened, as consecutive units of `unitElems` elements, unit u
// on tile u * tiles / units: whole units spread evenly over the tiles (the
// last unit also takes any remainder). Returns each unit's tile, for the
// vertices that write the units; maps nothing when unitElems is 0 or t is
// empty.
std::vector<unsigned> mapUnitsEvenly(Graph& graph, const Tensor& t, size_t unitElems);

// The minimum elements per tile the libraries use when they map new
// tensors linearly: one 64-bit vector per worker, so tiny tensors stay on
// few tiles.
unsigned defaultMinElementsPerTile(const Graph& graph, Type type);

}  // namespace poputil
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPUTIL_TILE_MAPPING_H_
