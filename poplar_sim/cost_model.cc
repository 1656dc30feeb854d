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

// Per-tile send/receive tallies of one exchange phase.
class ExchangeTally {
 public:
  // `multicast`: what one tile sends is the same data to every tile it
  // sends to (a broadcast source), which the exchange delivers to all of
  // them at once, so the sender is busy for the most it sends to any one.
  explicit ExchangeTally(const Target& t, bool multicast = false)
      : target_(t), multicast_(multicast), send_(t.getNumTiles(), 0),
        recv_(t.getNumTiles(), 0) {}

  void move(unsigned from, unsigned to, uint64_t bytes) {
    if (from == to || bytes == 0) return;
    if (multicast_) {
      uint64_t& to_one = multicastBytes_[{from, to}];
      to_one += bytes;
      send_[from] = std::max(send_[from], to_one);
    } else {
      send_[from] += bytes;
    }
    recv_[to] += bytes;
    const unsigned a = target_.tileToIPU(from), b = target_.tileToIPU(to);
    if (a != b) {
      pairBytes_[{a, b}] += bytes;
      interIpuBytes_ += bytes;
    } else {
      onChipBytes_ += bytes;
    }
    ipus_.insert(a);
    ipus_.insert(b);
  }
  uint64_t received(unsigned tile) const { return recv_[tile]; }
  uint64_t sent(unsigned tile) const { return send_[tile]; }
  bool any() const { return onChipBytes_ + interIpuBytes_ > 0; }
  // Adds this phase's exchange and IPU-Link cycles and bytes to `c`.
  void addTo(StepCost& c) const {
    uint64_t busiest = 0;
    for (size_t i = 0; i < send_.size(); ++i) {
      busiest = std::max({busiest, send_[i], recv_[i]});
    }
    c.exchangeCycles += CeilDiv(busiest, target_.getExchangeBytesPerCycle());
    uint64_t link = 0;
    for (const auto& [pair, bytes] : pairBytes_) {
      link = std::max(link, target_.ipuLinkTransferCycles(
                                bytes, ipuLinkHops(pair.first, pair.second)));
    }
    c.interIpuCycles += link;
    c.exchangeBytes += onChipBytes_;
    c.interIpuBytes += interIpuBytes_;
  }
  const std::set<unsigned>& ipus() const { return ipus_; }

 private:
  const Target& target_;
  bool multicast_;
  std::map<std::pair<unsigned, unsigned>, uint64_t> multicastBytes_;
  std::vector<uint64_t> send_, recv_;
  std::map<std::pair<unsigned, unsigned>, uint64_t> pairBytes_;
  uint64_t onChipBytes_ = 0, interIpuBytes_ = 0;
  std::set<unsigned> ipus_;
};

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

absl::StatusOr<ComputeSetAnalysis> analyseComputeSet(const GraphState& g,
                                                     const Target& target,
                                                     unsigned cs) {
  ComputeSetAnalysis a;
  const ComputeSetRecord& rec = g.computeSets[cs];
  const unsigned numWorkers = target.getNumWorkerContexts();
  std::map<unsigned, std::vector<uint64_t>> workerLoads;
  ExchangeTally in(target), out(target);
  std::set<unsigned> ipus;
  // One instance per vertex type, to bind the fields and ask for estimates.
  std::vector<std::unique_ptr<Vertex>> prototypes(g.vertices.numTypes());
  std::vector<double> paramSlots;

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
    std::unique_ptr<Vertex>& proto = prototypes[typeId];
    if (!proto) proto = (*VertexRegistry::global().find(type.name))();
    if (tile == TileMapping::kUnmapped) {
      return absl::FailedPreconditionError(absl::StrCat(
          describeVertex(g, v), " is not mapped to a tile; call "
          "Graph::setTileMapping(vertex, tile)"));
    }
    POPLAR_SIM_RETURN_IF_ERROR(
        vs.checkFieldNames(v, [&] { return describeVertex(g, v); }));
    paramSlots.assign(proto->fields().size(), 0);
    uint64_t stateBytes = target.arch().vertexStateBytes;
    size_t slot = 0;
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
        storeFromDouble(f->type(), &paramSlots[slot], 0, *value);
        f->bind(&paramSlots[slot], 1);
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
      t.forEachRun([&](const ElementRun& r) {
        for (auto* vars : {f->direction() != FieldDirection::OUTPUT ? &a.readVariables : nullptr,
                           f->direction() != FieldDirection::INPUT ? &a.writtenVariables
                                                                   : nullptr}) {
          if (vars && (vars->empty() || vars->back() != r.var)) vars->push_back(r.var);
        }
      });
      const uint64_t es = typeSize(t.elementType());
      ipus.insert(target.tileToIPU(tile));
      auto tally = [&](unsigned from, int64_t n) {
        ipus.insert(target.tileToIPU(from));
        if (f->direction() != FieldDirection::OUTPUT) {
          in.move(from, tile, n * es);
        }
        if (f->direction() != FieldDirection::INPUT) {
          out.move(tile, from, n * es);
        }
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
    std::vector<uint64_t>& loads = workerLoads[tile];
    if (loads.empty()) loads.assign(numWorkers, 0);
    if (proto->isMultiVertex()) {
      // Occupies every worker, after each finished what it had.
      const uint64_t start = *std::max_element(loads.begin(), loads.end());
      std::fill(loads.begin(), loads.end(), start + cycles);
    } else {
      *std::min_element(loads.begin(), loads.end()) += cycles;
    }
    a.vertexStateBytes[tile] += stateBytes;
    std::vector<uint32_t>& types = a.vertexTypes[tile];
    if (std::find(types.begin(), types.end(), typeId) == types.end()) {
      types.push_back(typeId);
    }
  }

  uint64_t sumTile = 0;
  for (const auto& [tile, loads] : workerLoads) {
    const uint64_t t =
        numWorkers * *std::max_element(loads.begin(), loads.end());
    sumTile += t;
    if (a.numTiles == 0 || t > a.maxTileCycles) {
      a.maxTileCycles = t;
      a.slowestTile = tile;
    }
    ++a.numTiles;
    a.exchangeBufferBytes[tile] = in.received(tile) + out.sent(tile);
  }
  if (a.numTiles > 0) a.meanTileCycles = sumTile / a.numTiles;
  if (ipus.empty()) ipus.insert(0);
  const unsigned n = static_cast<unsigned>(ipus.size());
  a.cost.computeCycles = a.maxTileCycles;
  a.cost.syncCycles = target.syncCycles(n);
  in.addTo(a.cost);
  if (out.any()) {
    a.cost.syncCycles += target.syncCycles(n);
    out.addTo(a.cost);
  }
  a.ipus.assign(ipus.begin(), ipus.end());
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
  ExchangeTally x(target, src.containsAliases());
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
