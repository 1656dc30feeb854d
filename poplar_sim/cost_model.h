// The bulk-synchronous cost model: static costs of compute sets and copies.
// Internal to the engine; the formulas are documented in docs/poplar_sim.md.
//
// A compute set runs as: sync, exchange of the vertices' non-local inputs
// to their tiles, compute (the slowest tile: numWorkers x its busiest
// worker's cycles), then, if outputs live on other tiles, a second sync and
// exchange. Exchange cycles are the busiest tile's bytes (sent or received)
// over the per-tile exchange bandwidth; bytes between IPUs also cross an
// IPU-Link (the busiest IPU pair bounds it, paying a latency per hop
// between the two IPUs: ipu_link_topology.h) and the sync spans the IPUs.
#ifndef POPLAR_SIM_COST_MODEL_H_
#define POPLAR_SIM_COST_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "poplar_sim/exchange_tally.h"
#include "poplar_sim/graph_state.h"
#include "poplar_sim/profile.h"
#include "poplar_sim/target.h"
#include "poplar_sim/tensor.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace internal {

// Calls f(globalTile, count) for consecutive pieces of run `r`'s elements
// in order (tile kUnmapped for unmapped elements).
template <typename F>
void forEachPieceOfRun(const GraphState& g, const ElementRun& r, F& f) {
  const TileMapping& m = g.variables[r.var].mapping;
  if (r.count == 1 || r.stride == 0) {
    f(m.tileOf(r.start), r.count);
  } else if (r.stride == 1) {
    m.forEachPiece(r.start, r.start + r.count,
                   [&](int64_t b, int64_t e, unsigned tile) { f(tile, e - b); });
  } else if (r.stride > 0) {
    m.forEachStridedElement(r.start, r.count, r.stride, [&](unsigned tile) { f(tile, 1); });
  } else {
    for (int64_t k = 0; k < r.count; ++k) f(m.tileOf(r.at(k)), 1);
  }
}

// The same for each of `runs`, in order.
template <typename F>
void forEachRunPiece(const GraphState& g, absl::Span<const ElementRun> runs, F&& f) {
  for (const ElementRun& r : runs) forEachPieceOfRun(g, r, f);
}

// Calls f(globalTile, count) for consecutive pieces of `t`'s elements in
// row-major order (tile kUnmapped for unmapped elements).
template <typename F>
void forEachTilePiece(const GraphState& g, const Tensor& t, F&& f) {
  forEachRunPiece(g, t.runs(), std::forward<F>(f));
}

// The runs of `t` with each element that a broadcast repeats listed once:
// a stride-0 run is one element, and a run repeated whole (a bias row under
// every row of a matrix) appears once. What a tile must receive to read `t`.
std::vector<ElementRun> distinctRuns(const Tensor& t);
// The same for a tensor's runs.
std::vector<ElementRun> distinctRuns(std::vector<ElementRun> runs);

// What a compute set needs of one tile that runs some of its vertices.
struct ComputeSetTileUse {
  unsigned tile = 0;
  // Exchange buffers: non-local inputs received plus outputs waiting to
  // be sent.
  uint64_t exchangeBufferBytes = 0;
  uint64_t vertexStateBytes = 0;
  // The vertex types it runs (ids of the graph's VertexStore, each once).
  absl::InlinedVector<uint32_t, 2> vertexTypes;
};

// The result of analysing (validating and costing) one compute set.
struct ComputeSetAnalysis {
  StepCost cost;
  uint64_t maxTileCycles = 0;
  uint64_t meanTileCycles = 0;
  unsigned slowestTile = 0;
  unsigned numTiles = 0;
  uint64_t flops = 0;  // the vertices' getFlopEstimate, summed
  std::vector<unsigned> ipus;
  // The variables its vertices read and write (ids, sorted, each once).
  std::vector<uint32_t> readVariables;
  std::vector<uint32_t> writtenVariables;
  // The tiles with vertices, in tile order.
  std::vector<ComputeSetTileUse> tiles;
};

// Validates every vertex of a compute set (mapped, fields connected with
// the right types and sizes, params set, a cycle estimate) and costs it.
// One analyser serves every compute set of a graph, reusing its per-tile
// counters (sized for the whole target, cleared only where a compute set
// touched them) and one instance of each vertex type; it is not
// thread-safe: give each thread its own.
class ComputeSetAnalyser {
 public:
  ComputeSetAnalyser(const GraphState& g, const Target& target);
  absl::StatusOr<ComputeSetAnalysis> analyse(unsigned cs);

 private:
  // The worker loads of `tile`, numWorkers of them, zero the first time
  // the current compute set asks.
  uint64_t* workerLoads(unsigned tile);
  void noteIpu(unsigned ipu);

  const GraphState& g_;
  const Target& target_;
  const unsigned numWorkers_;
  ExchangeTally in_, out_;
  std::vector<std::unique_ptr<Vertex>> prototypes_;  // by vertex type id
  std::vector<double> paramSlots_;
  // Per tile: index into tileUses_ and loads_ (numWorkers_ each), or -1.
  std::vector<int32_t> tileIndex_;
  std::vector<ComputeSetTileUse> tileUses_;
  std::vector<uint64_t> loads_;
  std::vector<uint8_t> ipuSeen_;
  std::vector<unsigned> ipus_;
};

// The cost of copying src to dst element by element; `ipus` receives the
// IPUs involved.
StepCost copyCost(const GraphState& g, const Target& target, const Tensor& src,
                  const Tensor& dst, std::vector<unsigned>* ipus);

// A cross-replica all-reduce of `src` into `dst` over groups of
// `groupSize` replicas (1: a local copy), costed as a ring over the
// IPU-Links: a reduce-scatter then an all-gather, each replica sending
// 2(G-1)/G of the tensor's bytes over one link, with 2(G-1) hop latencies
// and syncs, plus the additions of the reduce-scatter spread over the tiles
// that hold `src`. The same on every replica (they run in parallel).
StepCost crossReplicaReduceCost(const GraphState& g, const Target& target,
                                const Tensor& src, const Tensor& dst,
                                unsigned groupSize, std::vector<unsigned>* ipusOut);

// The IPUs holding elements of `t`.
std::vector<unsigned> tensorIPUs(const GraphState& g, const Target& target,
                                 const Tensor& t);

// "vertex 3 (type 'Sum', compute set 'cs')": how errors name a vertex.
std::string describeVertex(const GraphState& g, unsigned vertex);

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_COST_MODEL_H_
