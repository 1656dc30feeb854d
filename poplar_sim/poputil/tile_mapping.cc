#include "poplar_sim/poputil/tile_mapping.h"

#include <algorithm>
#include <cstdint>

namespace poplar_sim {
namespace poputil {

namespace {

// The number of tiles a linear mapping uses.
size_t LinearMappingTiles(size_t numTiles, size_t numElements, unsigned minElementsPerTile,
                          unsigned grainSize) {
  const size_t grains = (numElements + grainSize - 1) / grainSize;
  const size_t minGrains =
      std::max<size_t>(1, (minElementsPerTile + grainSize - 1) / grainSize);
  const size_t maxTiles = std::max<size_t>(1, grains / minGrains);
  return std::min<size_t>(numTiles, maxTiles);
}

// Calls f(tile, interval) for each chunk of a linear mapping, in element
// order (the tiles from `offset` on, wrapping round).
template <typename F>
void ForEachLinearChunk(unsigned numTiles, size_t numElements, unsigned minElementsPerTile,
                        unsigned grainSize, unsigned offset, F&& f) {
  if (numElements == 0) return;
  grainSize = std::max(1u, grainSize);
  const size_t grains = (numElements + grainSize - 1) / grainSize;
  const size_t usedTiles =
      LinearMappingTiles(numTiles, numElements, minElementsPerTile, grainSize);
  const size_t perTile = grains / usedTiles, extra = grains % usedTiles;
  size_t grain = 0;
  for (size_t t = 0; t < usedTiles; ++t) {
    const size_t n = perTile + (t < extra ? 1 : 0);
    const int64_t b = static_cast<int64_t>(grain * grainSize);
    const int64_t e = static_cast<int64_t>(
        std::min(numElements, (grain + n) * grainSize));
    if (e > b) f(static_cast<unsigned>((offset + t) % numTiles), Interval{b, e});
    grain += n;
  }
}

}  // namespace

TileToTensorMapping calcLinearTileMapping(const Graph& graph,
                                          size_t numElements,
                                          unsigned minElementsPerTile,
                                          unsigned grainSize,
                                          unsigned offset) {
  const unsigned numTiles = graph.getTarget().getNumTiles();
  TileToTensorMapping m(numTiles);
  ForEachLinearChunk(numTiles, numElements, minElementsPerTile, grainSize, offset,
                     [&](unsigned tile, Interval iv) { m[tile].push_back(iv); });
  return m;
}

unsigned linearMappingOffset(const Graph& graph, const Tensor& t, size_t usedTiles) {
  const size_t numTiles = graph.getTarget().getNumTiles();
  if (!t.valid() || t.runs().empty() || usedTiles >= numTiles) return 0;
  return static_cast<unsigned>((uint64_t{t.runs()[0].var} * usedTiles) % numTiles);
}

void mapTensorLinearly(Graph& graph, const Tensor& t,
                       unsigned minElementsPerTile, unsigned grainSize) {
  if (!t.valid()) {
    graph.setTileMapping(t, TileToTensorMapping());  // records the tensor's error
    return;
  }
  const unsigned numTiles = graph.getTarget().getNumTiles();
  const size_t n = t.numElements();
  const size_t usedTiles =
      n == 0 ? 0 : LinearMappingTiles(numTiles, n, minElementsPerTile, std::max(1u, grainSize));
  // Interval by interval, as Graph::setTileMapping(t, mapping) would, but
  // without a per-tile table for a tensor that may use a handful of tiles.
  const Tensor flat = t.flatten();
  ForEachLinearChunk(numTiles, n, minElementsPerTile, grainSize,
                     linearMappingOffset(graph, t, usedTiles),
                     [&](unsigned tile, Interval iv) {
                       graph.setTileMapping(flat.slice(iv.begin, iv.end), tile);
                     });
}

void forEachTileInterval(const Graph& graph, const Tensor& t,
                         const std::function<void(unsigned, Interval)>& f) {
  for (const auto& [tile, iv] : graph.getTileIntervals(t)) f(tile, iv);
}

Tensor duplicate(Graph& graph, const Tensor& t, program::Sequence& prog,
                 const std::string& debugName) {
  Tensor c = graph.clone(t, debugName);
  prog.add(program::Copy(t, c));
  return c;
}

std::vector<unsigned> mapUnitsEvenly(Graph& graph, const Tensor& t, size_t unitElems) {
  const size_t tiles = graph.getTarget().getNumTiles();
  const size_t n = t.numElements();
  // Whole units, the last taking any remainder (a partial unit on its own
  // when fewer elements than one unit).
  const size_t units = unitElems == 0 ? 0 : std::max<size_t>(n / unitElems, n > 0 ? 1 : 0);
  const Tensor flat = t.flatten();
  std::vector<unsigned> tileOf(units);
  for (size_t u = 0; u < units; ++u) {
    // u < units <= n, and tiles is small: no overflow of u * tiles.
    tileOf[u] = static_cast<unsigned>(u * tiles / units);
    const size_t end = u + 1 == units ? n : (u + 1) * unitElems;
    graph.setTileMapping(flat.slice(u * unitElems, end), tileOf[u]);
  }
  return tileOf;
}

unsigned defaultMinElementsPerTile(const Graph& graph, Type type) {
  return graph.getTarget().getVectorWidth(type) *
         graph.getTarget().getNumWorkerContexts();
}

}  // namespace poputil
}  // namespace poplar_sim
