#include "poplar_sim/cost_model.h"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "poplar_sim/ipu_link_topology.h"
#include "poplar_sim/status_macros.h"

namespace poplar_sim {
namespace internal {
namespace {

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

std::vector<std::pair<unsigned, int64_t>> Pieces(const GraphState& g,
                                                 const Tensor& t) {
  std::vector<std::pair<unsigned, int64_t>> out;
  forEachTilePiece(g, t, [&](unsigned tile, int64_t n) {
    if (!out.empty() && out.back().first == tile) {
      out.back().second += n;
    } else {
      out.emplace_back(tile, n);
    }
  });
  return out;
}

const char* DirectionName(FieldDirection d) {
  switch (d) {
    case FieldDirection::INPUT: return "Input";
    case FieldDirection::OUTPUT: return "Output";
    case FieldDirection::INOUT: return "InOut";
    case FieldDirection::PARAM: return "Param";
  }
  return "?";
}

}  // namespace

std::vector<ElementRun> distinctRuns(const Tensor& t) { return distinctRuns(t.runs()); }

std::vector<ElementRun> distinctRuns(std::vector<ElementRun> runs) {
  for (ElementRun& r : runs) {
    if (r.stride == 0) r = ElementRun{r.var, r.start, 1, 1};
  }
  auto key = [](const ElementRun& r) { return std::tie(r.var, r.start, r.count, r.stride); };
  std::sort(runs.begin(), runs.end(),
            [&](const ElementRun& a, const ElementRun& b) { return key(a) < key(b); });
  runs.erase(std::unique(runs.begin(), runs.end(),
                         [&](const ElementRun& a, const ElementRun& b) { return key(a) == key(b); }),
             runs.end());
  return runs;
}

std::string describeVertex(const GraphState& g, unsigned v) {
  const VertexStore& s = g.vertices;
  return absl::StrCat("vertex ", v, " (type '", s.typeInfo(s.typeId(v)).name,
                      "', compute set '", g.computeSets[s.computeSet(v)].name, "')");
}

ComputeSetAnalyser::ComputeSetAnalyser(const GraphState& g, const Target& target)
    : g_(g),
      target_(target),
      numWorkers_(target.getNumWorkerContexts()),
      in_(target),
      out_(target),
      tileIndex_(target.getNumTiles(), -1),
      ipuSeen_(target.getNumIPUs(), 0) {}

uint64_t* ComputeSetAnalyser::workerLoads(unsigned tile) {
  int32_t& i = tileIndex_[tile];
  if (i < 0) {
    i = static_cast<int32_t>(tileUses_.size());
    tileUses_.emplace_back().tile = tile;
    loads_.resize(loads_.size() + numWorkers_, 0);
  }
  return &loads_[size_t(i) * numWorkers_];
}

void ComputeSetAnalyser::noteIpu(unsigned ipu) {
  if (ipu < ipuSeen_.size() && !ipuSeen_[ipu]) {
    ipuSeen_[ipu] = 1;
    ipus_.push_back(ipu);
  }
}

absl::StatusOr<ComputeSetAnalysis> ComputeSetAnalyser::analyse(unsigned cs) {
  // Clear what the previous compute set left (also after an error).
  for (const ComputeSetTileUse& u : tileUses_) tileIndex_[u.tile] = -1;
  tileUses_.clear();
  loads_.clear();
  for (const unsigned ipu : ipus_) ipuSeen_[ipu] = 0;
  ipus_.clear();
  in_.reset();
  out_.reset();
  if (prototypes_.size() < g_.vertices.numTypes()) prototypes_.resize(g_.vertices.numTypes());

  ComputeSetAnalysis a;
  const GraphState& g = g_;
  const Target& target = target_;
  const ComputeSetRecord& rec = g.computeSets[cs];
  for (unsigned v : rec.vertices) {
    const VertexStore& vs = g.vertices;
    const uint32_t typeId = vs.typeId(v);
    const VertexTypeInfo& type = vs.typeInfo(typeId);
    const unsigned tile = vs.tile(v);
    if (!type.registered) {
      return absl::NotFoundError(absl::StrCat(
          describeVertex(g, v), ": unknown vertex type; register it with "
          "POPLAR_SIM_REGISTER_VERTEX"));
    }
    // One instance per vertex type, to bind the fields and ask for
    // estimates; every field is bound again for each vertex.
    std::unique_ptr<Vertex>& proto = prototypes_[typeId];
    if (!proto) proto = (*VertexRegistry::global().find(type.name))();
    if (tile == TileMapping::kUnmapped) {
      return absl::FailedPreconditionError(absl::StrCat(
          describeVertex(g, v), " is not mapped to a tile; call "
          "Graph::setTileMapping(vertex, tile)"));
    }
    POPLAR_SIM_RETURN_IF_ERROR(
        vs.checkFieldNames(v, [&] { return describeVertex(g, v); }));
    paramSlots_.assign(proto->fields().size(), 0);
    uint64_t stateBytes = target.arch().vertexStateBytes;
    size_t slot = 0;
    const unsigned tileIpu = target.tileToIPU(tile);
    for (size_t fi = 0; fi < proto->fields().size(); ++fi) {
      FieldBase* f = proto->fields()[fi];
      stateBytes += target.arch().fieldDescriptorBytes;
      if (f->direction() == FieldDirection::PARAM) {
        const std::optional<double> value = vs.param(v, fi);
        if (!value) {
          return absl::FailedPreconditionError(absl::StrCat(
              "Param field '", f->name(), "' of ", describeVertex(g, v),
              " is not set; call Graph::setInitialValue"));
        }
        storeFromDouble(f->type(), &paramSlots_[slot], 0, *value);
        f->bind(&paramSlots_[slot], 1);
        ++slot;
        continue;
      }
      const ConnectionView t = vs.connection(v, fi);
      if (!t.connected()) {
        return absl::FailedPreconditionError(absl::StrCat(
            DirectionName(f->direction()), " field '", f->name(), "' of ",
            describeVertex(g, v), " is not connected; call Graph::connect"));
      }
      if (t.elementType() != f->type()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Field '", f->name(), "' of ", describeVertex(g, v), " holds ",
            typeName(f->type()), " but is connected to tensor '",
            t.debugName(), "' of type ", typeName(t.elementType())));
      }
      const size_t numElements = t.numElements();
      if (!f->isVector() && numElements != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Field '", f->name(), "' of ", describeVertex(g, v),
            " holds one element but is connected to tensor '",
            t.debugName(), "' of shape ", t.shapeToString(), " (",
            numElements, " elements)"));
      }
      if (f->direction() != FieldDirection::INPUT && t.containsAliases()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Field '", f->name(), "' of ", describeVertex(g, v),
            " is written but connected to a view that repeats elements "
            "(a broadcast); outputs must not alias"));
      }
      f->bind(nullptr, numElements);
      const bool reads = f->direction() != FieldDirection::OUTPUT;
      const bool writes = f->direction() != FieldDirection::INPUT;
      t.forEachRun([&](const ElementRun& r) {
        if (reads && (a.readVariables.empty() || a.readVariables.back() != r.var)) {
          a.readVariables.push_back(r.var);
        }
        if (writes && (a.writtenVariables.empty() || a.writtenVariables.back() != r.var)) {
          a.writtenVariables.push_back(r.var);
        }
      });
      const uint64_t es = typeSize(t.elementType());
      noteIpu(tileIpu);
      auto tally = [&](unsigned from, int64_t n) {
        if (from != tile) noteIpu(target.tileToIPU(from));
        if (reads) in_.move(from, tile, n * es);
        if (writes) out_.move(tile, from, n * es);
      };
      if (f->direction() == FieldDirection::INPUT && t.containsAliases()) {
        // A broadcast input: the tile receives each element once and the
        // vertex reads it as often as it needs, as Poplar's broadcast
        // vertices take a scalar or a repeated block.
        forEachRunPiece(g, distinctRuns(t.runs()), tally);
      } else {
        t.forEachRun([&](const ElementRun& r) { forEachPieceOfRun(g, r, tally); });
      }
    }
    uint64_t cycles;
    if (const std::optional<uint64_t> perf = vs.perfEstimate(v)) {
      cycles = *perf;
    } else {
      std::optional<uint64_t> est = proto->getCycleEstimate(target);
      if (!est) {
        return absl::FailedPreconditionError(absl::StrCat(
            describeVertex(g, v), " has no cycle estimate: its type defines "
            "no getCycleEstimate; call Graph::setPerfEstimate(vertex, "
            "cycles)"));
      }
      cycles = *est;
    }
    a.flops += proto->getFlopEstimate();
    uint64_t* loads = workerLoads(tile);
    if (proto->isMultiVertex()) {
      // Occupies every worker, after each finished what it had.
      const uint64_t start = *std::max_element(loads, loads + numWorkers_);
      std::fill(loads, loads + numWorkers_, start + cycles);
    } else {
      *std::min_element(loads, loads + numWorkers_) += cycles;
    }
    ComputeSetTileUse& use = tileUses_[size_t(tileIndex_[tile])];
    use.vertexStateBytes += stateBytes;
    if (std::find(use.vertexTypes.begin(), use.vertexTypes.end(), typeId) ==
        use.vertexTypes.end()) {
      use.vertexTypes.push_back(typeId);
    }
  }

  // In tile order: the slowest tile is the first of the slowest.
  std::vector<uint32_t> order(tileUses_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    return tileUses_[x].tile < tileUses_[y].tile;
  });
  uint64_t sumTile = 0;
  a.tiles.reserve(order.size());
  for (const uint32_t i : order) {
    const uint64_t* loads = &loads_[size_t(i) * numWorkers_];
    const uint64_t t = numWorkers_ * *std::max_element(loads, loads + numWorkers_);
    const unsigned tile = tileUses_[i].tile;
    sumTile += t;
    if (a.numTiles == 0 || t > a.maxTileCycles) {
      a.maxTileCycles = t;
      a.slowestTile = tile;
    }
    ++a.numTiles;
    a.tiles.push_back(tileUses_[i]);
    a.tiles.back().exchangeBufferBytes = in_.received(tile) + out_.sent(tile);
  }
  if (a.numTiles > 0) a.meanTileCycles = sumTile / a.numTiles;
  if (ipus_.empty()) noteIpu(0);
  const unsigned n = static_cast<unsigned>(ipus_.size());
  a.cost.computeCycles = a.maxTileCycles;
  a.cost.syncCycles = target.syncCycles(n);
  in_.addTo(a.cost);
  if (out_.any()) {
    a.cost.syncCycles += target.syncCycles(n);
    out_.addTo(a.cost);
  }
  a.ipus = ipus_;
  std::sort(a.ipus.begin(), a.ipus.end());
  for (auto* vars : {&a.readVariables, &a.writtenVariables}) {
    std::sort(vars->begin(), vars->end());
    vars->erase(std::unique(vars->begin(), vars->end()), vars->end());
  }
  return a;
}

StepCost copyCost(const GraphState& g, const Target& target, const Tensor& src,
                  const Tensor& dst, std::vector<unsigned>* ipusOut) {
  StepCost c;
  const uint64_t es = typeSize(src.elementType());
  auto sp = Pieces(g, src), dp = Pieces(g, dst);
  // A source that repeats elements (a broadcast zero filling a variable)
  // is multicast: its tile sends each element once to all readers.
  ExchangeTally x(target);
  x.reset(src.containsAliases());
  std::map<unsigned, uint64_t> local;
  std::set<unsigned> ipus;
  size_t i = 0, j = 0;
  int64_t si = 0, dj = 0;  // elements consumed of the current pieces
  while (i < sp.size() && j < dp.size()) {
    const int64_t n = std::min(sp[i].second - si, dp[j].second - dj);
    const unsigned from = sp[i].first, to = dp[j].first;
    ipus.insert(target.tileToIPU(from));
    ipus.insert(target.tileToIPU(to));
    if (from == to) {
      local[from] += n * es;
    } else {
      x.move(from, to, n * es);
    }
    si += n;
    dj += n;
    if (si == sp[i].second) ++i, si = 0;
    if (dj == dp[j].second) ++j, dj = 0;
  }
  uint64_t maxLocal = 0;
  for (const auto& [tile, bytes] : local) maxLocal = std::max(maxLocal, bytes);
  c.computeCycles = CeilDiv(maxLocal, target.arch().tileLocalCopyBytesPerCycle);
  if (ipus.empty()) ipus.insert(0);
  c.syncCycles = target.syncCycles(static_cast<unsigned>(ipus.size()));
  x.addTo(c);
  if (ipusOut) ipusOut->assign(ipus.begin(), ipus.end());
  return c;
}

StepCost crossReplicaReduceCost(const GraphState& g, const Target& target,
                                const Tensor& src, const Tensor& dst,
                                unsigned groupSize, std::vector<unsigned>* ipusOut) {
  StepCost c = copyCost(g, target, src, dst, ipusOut);
  if (groupSize <= 1) return c;
  const uint64_t elements = src.numElements();
  const uint64_t bytes = elements * typeSize(src.elementType());
  const double sentBytes = 2.0 * (groupSize - 1) / groupSize * static_cast<double>(bytes);
  const unsigned hops = 2 * (groupSize - 1);
  c.interIpuBytes += static_cast<uint64_t>(sentBytes);
  c.interIpuCycles += target.secondsToCycles(
      sentBytes / target.arch().ipuLinkBytesPerSecond +
      hops * target.arch().ipuLinkLatencySeconds);
  c.syncCycles += hops * target.syncCycles(2);
  std::set<unsigned> tiles;
  forEachTilePiece(g, src, [&](unsigned tile, int64_t) { tiles.insert(tile); });
  const uint64_t adds = elements * (groupSize - 1) / groupSize;
  const uint64_t lanes =
      uint64_t{std::max<size_t>(tiles.size(), 1)} * target.getVectorWidth(src.elementType());
  c.computeCycles += CeilDiv(adds, lanes);
  return c;
}

std::vector<unsigned> tensorIPUs(const GraphState& g, const Target& target,
                                 const Tensor& t) {
  std::set<unsigned> ipus;
  forEachTilePiece(g, t, [&](unsigned tile, int64_t) {
    if (tile != TileMapping::kUnmapped) ipus.insert(target.tileToIPU(tile));
  });
  if (ipus.empty()) ipus.insert(0);
  return std::vector<unsigned>(ipus.begin(), ipus.end());
}

}  // namespace internal
}  // namespace poplar_sim
