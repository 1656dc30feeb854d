#include "poplar_sim/graph.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "poplar_sim/graph_state.h"

namespace poplar_sim {
namespace {

uint64_t NextGraphId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

// As errors name a vertex (the engine's describeVertex says the same).
std::string DescribeVertex(const internal::GraphState& g, unsigned v) {
  const internal::VertexStore& s = g.vertices;
  return absl::StrCat("vertex ", v, " (type '", s.typeInfo(s.typeId(v)).name,
                      "', compute set '", g.computeSets[s.computeSet(v)].name, "')");
}

// Elements of `t` in runs that mapping code must visit one by one (strides
// other than 1), counted up to the bound.
size_t ElementsVisitedOneByOne(const Tensor& t, bool cheapReversals) {
  size_t n = 0;
  for (const ElementRun& r : t.runs()) {
    if (r.count <= 1 || r.stride == 1) continue;
    if (cheapReversals && (r.stride == 0 || r.stride == -1)) continue;
    n += static_cast<size_t>(r.count);
    if (n > kMaxViewRuns) break;
  }
  return n;
}

}  // namespace

std::string describeComputeSet(const ComputeSet& cs) {
  if (cs.graphId == 0) return "an empty compute set handle";
  return absl::StrCat("compute set '", cs.debugName, "'");
}

Graph::Graph(const Target& target)
    : state_(std::make_shared<internal::GraphState>()), target_(target) {
  state_->id = NextGraphId();
  state_->target = target;
  state_->deviceTarget = target;
}

Graph::Graph(const Target& target, replication_factor r) : Graph(target) {
  if (r.value == 0 || target.getNumIPUs() % r.value != 0) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        "Graph: a replication factor of ", r.value, " does not divide the ",
        target.getNumIPUs(), " IPU(s) of the target; use a factor that divides it")));
    return;
  }
  target_ = target.subTarget(0, target.getNumTiles() / r.value);
  state_->target = target_;
  state_->replicationFactor = r.value;
}

unsigned Graph::getReplicationFactor() const { return state_->replicationFactor; }

Tensor Graph::addReplicationIndexConstant(const std::string& debugName) {
  Tensor t = addConstant<unsigned>(UNSIGNED_INT, {}, 0u,
                                   debugName.empty() ? "replicationIndex" : debugName);
  if (t.valid()) state_->variables.back().isReplicationIndex = true;
  return t;
}

absl::Status Graph::status() const { return state_->status; }
uint64_t Graph::id() const { return state_->id; }

void Graph::recordError(absl::Status s) const {
  if (state_->status.ok() && !s.ok()) state_->status = std::move(s);
}

bool Graph::checkTensor(const Tensor& t, const char* what) const {
  if (!t.valid()) {
    recordError(t.status());
    return false;
  }
  if (t.graphId() != state_->id) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        what, ": tensor '", t.getDebugName(),
        "' belongs to another graph; tensors can only be used in the graph "
        "(or a virtual graph of the graph) that created them")));
    return false;
  }
  return true;
}

bool Graph::checkTile(unsigned tile, What what) const {
  if (tile >= target_.getNumTiles()) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        what(), ": tile ", tile, " is out of range; this graph has ",
        target_.getNumTiles(), " tiles (0-", target_.getNumTiles() - 1, ")")));
    return false;
  }
  return true;
}

bool Graph::checkMappingWork(const Tensor& t, const char* what,
                             bool cheapReversals) const {
  if (ElementsVisitedOneByOne(t, cheapReversals) > kMaxViewRuns) {
    recordError(absl::ResourceExhaustedError(absl::StrCat(
        what, " of tensor '", t.getDebugName(), "' ", t.shapeToString(),
        ": the view has more than ", kMaxViewRuns,
        " strided elements, each of which would be mapped one by one; map "
        "the underlying variable instead")));
    return false;
  }
  return true;
}

bool Graph::checkComputeSet(const ComputeSet& cs, What what) const {
  if (cs.graphId != state_->id || cs.id >= state_->computeSets.size()) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        what(), ": ", describeComputeSet(cs),
        cs.graphId == 0 ? "" : " belongs to another graph",
        "; use a compute set made by this graph's addComputeSet")));
    return false;
  }
  return true;
}

bool Graph::checkVertex(const VertexRef& v, What what) const {
  if (v.graphId != state_->id || v.id >= state_->vertices.size()) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        what(), ": vertex ", v.id,
        v.graphId == 0 ? " is an empty handle (was addVertex refused?)"
                       : " belongs to another graph",
        "; use a vertex made by this graph's addVertex")));
    return false;
  }
  return true;
}

Tensor Graph::addVariable(Type type, std::vector<size_t> shape,
                          const std::string& debugName) {
  const std::string name =
      debugName.empty() ? absl::StrCat("var", state_->variables.size()) : debugName;
  const std::optional<size_t> n = checkedNumElements(shape, typeSize(type));
  if (!n.has_value()) {
    Tensor err = Tensor::makeError(absl::InvalidArgumentError(absl::StrCat(
        "addVariable: tensor '", name, "' of shape ", shapeToString(shape),
        " has too many elements: their count (or ", typeName(type),
        " bytes) overflows; a tensor holds at most 2^62 bytes")));
    recordError(err.status());
    return err;
  }
  internal::VariableRecord v;
  v.name = std::make_shared<const std::string>(name);
  v.type = type;
  v.shape = shape;
  v.numElements = static_cast<int64_t>(*n);
  const uint32_t id = static_cast<uint32_t>(state_->variables.size());
  std::shared_ptr<const std::string> sharedName = v.name;
  state_->variables.push_back(std::move(v));
  return Tensor::makeVariable(state_->id, id, type, std::move(shape), sharedName);
}

Tensor Graph::addConstantRaw(Type type, std::vector<size_t> shape,
                             Type srcType, const void* values,
                             size_t numValues, const std::string& debugName) {
  const std::optional<size_t> checked = checkedNumElements(shape, typeSize(type));
  if (!checked.has_value()) {
    // addVariable names the tensor and its shape, and records the error.
    return addVariable(type, std::move(shape), debugName.empty() ? "const" : debugName);
  }
  const size_t n = *checked;
  // A constant's values are stored on the host as the graph is built; one
  // larger than the whole target's memory could never be loaded.
  const uint64_t targetBytes =
      uint64_t{target_.getNumTiles()} * target_.getBytesPerTile();
  if (n * typeSize(type) > targetBytes) {
    Tensor err = Tensor::makeError(absl::ResourceExhaustedError(absl::StrCat(
        "addConstant: constant '", debugName, "' ", typeName(type), shapeToString(shape),
        " needs ", n * typeSize(type), " bytes, more than the target's ", targetBytes,
        " bytes of memory")));
    recordError(err.status());
    return err;
  }
  if (values == nullptr && numValues > 0) {
    Tensor err = Tensor::makeError(absl::InvalidArgumentError(absl::StrCat(
        "addConstant '", debugName, "': the values pointer is null")));
    recordError(err.status());
    return err;
  }
  if (numValues != n && numValues != 1) {
    Tensor err = Tensor::makeError(absl::InvalidArgumentError(absl::StrCat(
        "addConstant '", debugName, "': ", numValues, " values for shape ",
        shapeToString(shape), " of ", n, " elements (give ", n,
        " values or one)")));
    recordError(err.status());
    return err;
  }
  Tensor t = addVariable(type, std::move(shape),
                         debugName.empty()
                             ? absl::StrCat("const", state_->variables.size())
                             : debugName);
  if (!t.valid()) return t;
  internal::VariableRecord& v = state_->variables.back();
  v.isConstant = true;
  const size_t es = typeSize(type);
  v.constantData.resize(n * es);
  if (numValues == n) {
    convertElements(srcType, values, type, v.constantData.data(), n);
  } else if (n > 0) {
    convertElements(srcType, values, type, v.constantData.data(), 1);
    for (size_t i = 1; i < n; ++i) {
      std::memcpy(v.constantData.data() + i * es, v.constantData.data(), es);
    }
  }
  return t;
}

Tensor Graph::addConstantFromDoubles(Type type, std::vector<size_t> shape,
                                     absl::Span<const double> values,
                                     const std::string& debugName) {
  std::vector<char> buf(values.size() * typeSize(type));
  for (size_t i = 0; i < values.size(); ++i) {
    storeFromDouble(type, buf.data(), i, values[i]);
  }
  return addConstantRaw(type, std::move(shape), type, buf.data(),
                        values.size(), debugName);
}

Tensor Graph::clone(const Tensor& t, const std::string& debugName) {
  return clone(t.elementType(), t, debugName);
}

Tensor Graph::clone(Type type, const Tensor& t, const std::string& debugName) {
  if (!checkTensor(t, "clone")) return t;
  if (!checkMappingWork(t, "clone", false)) return Tensor::makeError(state_->status);
  Tensor c = addVariable(type, t.shape(),
                         debugName.empty() ? t.getDebugName() + "/clone"
                                           : debugName);
  // Copy the mapping element range by element range (global tiles).
  internal::VariableRecord& dst = state_->variables.back();
  int64_t pos = 0;
  for (const ElementRun& r : t.runs()) {
    const internal::VariableRecord& src = state_->variables[r.var];
    for (int64_t k = 0; k < r.count;) {
      if (r.stride == 1) {
        src.mapping.forEachPiece(r.start + k, r.start + r.count,
                                 [&](int64_t b, int64_t e, unsigned tile) {
                                   if (tile != TileMapping::kUnmapped) {
                                     dst.mapping.set(pos + (b - r.start - k),
                                                     pos + (e - r.start - k),
                                                     tile);
                                   }
                                 });
        pos += r.count - k;
        k = r.count;
      } else {
        unsigned tile = src.mapping.tileOf(r.at(k));
        if (tile != TileMapping::kUnmapped) dst.mapping.set(pos, pos + 1, tile);
        ++pos;
        ++k;
      }
    }
  }
  return c;
}

void Graph::setTileMapping(const Tensor& t, unsigned tile) {
  if (!checkTensor(t, "setTileMapping") ||
      !checkTile(tile, [&] {
        return absl::StrCat("setTileMapping of tensor '", t.getDebugName(), "' ",
                            t.shapeToString());
      }) ||
      !checkMappingWork(t, "setTileMapping", true)) {
    return;
  }
  const unsigned g = tile + tileOffset_;
  for (const ElementRun& r : t.runs()) {
    TileMapping& m = state_->variables[r.var].mapping;
    if (r.count == 1 || r.stride == 0) {
      m.set(r.start, r.start + 1, g);
    } else if (r.stride == 1) {
      m.set(r.start, r.start + r.count, g);
    } else if (r.stride == -1) {
      m.set(r.at(r.count - 1), r.start + 1, g);
    } else {
      for (int64_t k = 0; k < r.count; ++k) m.set(r.at(k), r.at(k) + 1, g);
    }
  }
}

void Graph::setTileMapping(const Tensor& t,
                           const TileToTensorMapping& mapping) {
  if (!checkTensor(t, "setTileMapping")) return;
  Tensor flat = t.flatten();
  for (unsigned tile = 0; tile < mapping.size(); ++tile) {
    for (const Interval& iv : mapping[tile]) {
      if (iv.begin < 0 || iv.end > static_cast<int64_t>(t.numElements()) ||
          iv.begin > iv.end) {
        recordError(absl::InvalidArgumentError(absl::StrCat(
            "setTileMapping: interval [", iv.begin, ", ", iv.end,
            ") is outside tensor '", t.getDebugName(), "' of ",
            t.numElements(), " elements")));
        return;
      }
      if (iv.size() > 0) setTileMapping(flat.slice(iv.begin, iv.end), tile);
    }
  }
}

bool Graph::containsConstant(const Tensor& t) const {
  if (!checkTensor(t, "containsConstant")) return false;
  for (const ElementRun& r : t.runs()) {
    if (r.count > 0 && state_->variables[r.var].isConstant) return true;
  }
  return false;
}

void Graph::forEachMappedPiece(
    const Tensor& t, absl::FunctionRef<void(unsigned, int64_t, int64_t)> add) const {
  const unsigned numTiles = target_.getNumTiles();
  auto piece = [&](unsigned gtile, int64_t b, int64_t e) {
    if (gtile == TileMapping::kUnmapped || gtile < tileOffset_) return;
    const unsigned tile = gtile - tileOffset_;
    if (tile < numTiles) add(tile, b, e);
  };
  int64_t pos = 0;
  for (const ElementRun& r : t.runs()) {
    const TileMapping& m = state_->variables[r.var].mapping;
    if (r.stride == 1 && r.count > 1) {
      m.forEachPiece(r.start, r.start + r.count,
                     [&](int64_t b, int64_t e, unsigned tile) {
                       piece(tile, pos + b - r.start, pos + e - r.start);
                     });
    } else if (r.stride > 0 && r.count > 1) {
      int64_t k = 0;
      m.forEachStridedElement(r.start, r.count, r.stride, [&](unsigned tile) {
        piece(tile, pos + k, pos + k + 1);
        ++k;
      });
    } else {
      for (int64_t k = 0; k < r.count; ++k) piece(m.tileOf(r.at(k)), pos + k, pos + k + 1);
    }
    pos += r.count;
  }
}

TileToTensorMapping Graph::getTileMapping(const Tensor& t) const {
  TileToTensorMapping out(target_.getNumTiles());
  if (!checkTensor(t, "getTileMapping") || !checkMappingWork(t, "getTileMapping", false)) {
    return out;
  }
  forEachMappedPiece(t, [&](unsigned tile, int64_t b, int64_t e) {
    std::vector<Interval>& v = out[tile];
    if (!v.empty() && v.back().end == b) {
      v.back().end = e;
    } else {
      v.push_back(Interval{b, e});
    }
  });
  return out;
}

std::vector<std::pair<unsigned, Interval>> Graph::getTileIntervals(const Tensor& t) const {
  std::vector<std::pair<unsigned, Interval>> out;
  if (!checkTensor(t, "getTileIntervals") ||
      !checkMappingWork(t, "getTileIntervals", false)) {
    return out;
  }
  // Pieces come in element order, so a piece continues its tile's last
  // interval exactly when it continues the last piece of all.
  forEachMappedPiece(t, [&](unsigned tile, int64_t b, int64_t e) {
    if (!out.empty() && out.back().first == tile && out.back().second.end == b) {
      out.back().second.end = e;
    } else {
      out.emplace_back(tile, Interval{b, e});
    }
  });
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

ComputeSet Graph::addComputeSet(const std::string& debugName) {
  internal::ComputeSetRecord cs;
  cs.name = debugName.empty()
                ? absl::StrCat("cs", state_->computeSets.size())
                : debugName;
  state_->computeSets.push_back(std::move(cs));
  return ComputeSet{static_cast<unsigned>(state_->computeSets.size() - 1),
                    state_->id, state_->computeSets.back().name};
}

VertexRef Graph::addVertex(
    ComputeSet cs, const std::string& vertexType,
    std::initializer_list<std::pair<std::string, Tensor>> connections) {
  return addVertex(cs, vertexType,
                   absl::MakeConstSpan(connections.begin(), connections.size()));
}

VertexRef Graph::addVertex(
    ComputeSet cs, const std::string& vertexType,
    absl::Span<const std::pair<std::string, Tensor>> connections) {
  if (!checkComputeSet(cs, [&] { return absl::StrCat("addVertex '", vertexType, "'"); })) {
    return VertexRef{0, 0};
  }
  const unsigned id = state_->vertices.addVertex(vertexType, cs.id);
  if (!state_->vertices.typeInfo(state_->vertices.typeId(id)).registered) {
    recordError(absl::NotFoundError(absl::StrCat(
        "addVertex: unknown vertex type '", vertexType,
        "'; register the class with POPLAR_SIM_REGISTER_VERTEX (and link its "
        "library with alwayslink = 1)")));
  }
  state_->computeSets[cs.id].vertices.push_back(id);
  VertexRef ref{id, state_->id};
  for (const auto& [field, t] : connections) connect(ref[field], t);
  return ref;
}

void Graph::connect(const FieldRef& f, const Tensor& t) {
  if (!checkVertex(f.vertex, [&] { return absl::StrCat("connect field '", f.field, "'"); })) {
    return;
  }
  if (!checkTensor(t, "connect")) return;
  state_->vertices.connect(f.vertex.id, f.field, t);
}

void Graph::setTileMapping(VertexRef v, unsigned tile) {
  if (!checkVertex(v, "setTileMapping(vertex)")) return;
  if (!checkTile(tile, [&] {
        return absl::StrCat("setTileMapping of ", DescribeVertex(*state_, v.id));
      })) {
    return;
  }
  state_->vertices.setTile(v.id, tile + tileOffset_);
}

void Graph::setPerfEstimate(VertexRef v, uint64_t cycles) {
  if (!checkVertex(v, "setPerfEstimate")) return;
  state_->vertices.setPerfEstimate(v.id, cycles);
}

void Graph::setInitialValue(const FieldRef& f, double value) {
  if (!checkVertex(f.vertex,
                   [&] { return absl::StrCat("setInitialValue of field '", f.field, "'"); })) {
    return;
  }
  if (!std::isfinite(value)) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        "setInitialValue of field '", f.field, "' of ", DescribeVertex(*state_, f.vertex.id),
        ": ", value, " is not a finite number")));
    return;
  }
  state_->vertices.setParam(f.vertex.id, f.field, value);
}

void Graph::setBulkExecutor(ComputeSet cs, BulkExecutor executor) {
  if (!checkComputeSet(cs, "setBulkExecutor")) return;
  state_->computeSets[cs.id].bulk = std::move(executor);
  // One description of the host work: a chain must not run an element-wise
  // executor that the bulk one has replaced.
  state_->computeSets[cs.id].elementwise = ElementwiseExecutor();
}

void Graph::setElementwiseExecutor(ComputeSet cs, ElementwiseExecutor executor) {
  if (!checkComputeSet(cs, "setElementwiseExecutor")) return;
  const Tensor& out = executor.out;
  if (!out.valid() || out.graphId() != state_->id || !out.isContiguous() ||
      !executor.run) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        "setElementwiseExecutor on compute set '", state_->computeSets[cs.id].name,
        "': the output must be a valid, contiguous tensor of this graph (one "
        "stride-1 run) and the executor a function; give a run-by-run tensor "
        "a bulk executor instead")));
    return;
  }
  internal::ComputeSetRecord& rec = state_->computeSets[cs.id];
  rec.bulk = [run = executor.run, n = out.numElements()](ExecutionContext& ctx) {
    parallelRanges(ctx.hostThreads(), n, [&](size_t begin, size_t end) { run(ctx, begin, end); },
                   kElementwiseSplitGrain);
    return absl::OkStatus();
  };
  rec.elementwise = std::move(executor);
}

std::vector<VertexRef> Graph::getComputeSetVertices(ComputeSet cs) const {
  std::vector<VertexRef> out;
  if (!checkComputeSet(cs, "getComputeSetVertices")) return out;
  for (unsigned v : state_->computeSets[cs.id].vertices) {
    out.push_back(VertexRef{v, state_->id});
  }
  return out;
}

DataStream Graph::addStream(const std::string& handle, Type type, size_t n,
                            StreamDirection dir) {
  if (!checkedNumElements({n}, typeSize(type)).has_value()) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        "Stream '", handle, "': records of ", n, " ", typeName(type),
        " elements overflow the byte count; a record holds at most 2^62 bytes")));
    return DataStream{};
  }
  if (state_->streamByHandle.count(handle) ||
      state_->hostAccess.count(handle)) {
    recordError(absl::AlreadyExistsError(absl::StrCat(
        "A stream or host access called '", handle,
        "' already exists; stream handles must be unique")));
    return DataStream{};
  }
  DataStream s;
  s.id = static_cast<unsigned>(state_->streams.size());
  s.graphId = state_->id;
  s.handle = handle;
  s.type = type;
  s.numElements = n;
  s.direction = dir;
  state_->streams.push_back(s);
  state_->streamByHandle[handle] = s.id;
  return s;
}

DataStream Graph::addHostToDeviceFIFO(const std::string& handle, Type type,
                                      size_t numElements) {
  return addStream(handle, type, numElements, StreamDirection::HOST_TO_DEVICE);
}

DataStream Graph::addDeviceToHostFIFO(const std::string& handle, Type type,
                                      size_t numElements) {
  return addStream(handle, type, numElements, StreamDirection::DEVICE_TO_HOST);
}

void Graph::createHostWrite(const std::string& handle, const Tensor& t) {
  if (!checkTensor(t, "createHostWrite")) return;
  if (state_->streamByHandle.count(handle)) {
    recordError(absl::AlreadyExistsError(absl::StrCat(
        "createHostWrite: '", handle, "' is already a stream handle")));
    return;
  }
  internal::HostAccessRecord& h = state_->hostAccess[handle];
  if (h.tensor.valid() && h.tensor.runs().size() != t.runs().size()) {
    recordError(absl::AlreadyExistsError(absl::StrCat(
        "createHostWrite: '", handle, "' already names another tensor")));
    return;
  }
  h.tensor = t;
  h.isWrite = true;
}

void Graph::createHostRead(const std::string& handle, const Tensor& t) {
  if (!checkTensor(t, "createHostRead")) return;
  if (state_->streamByHandle.count(handle)) {
    recordError(absl::AlreadyExistsError(absl::StrCat(
        "createHostRead: '", handle, "' is already a stream handle")));
    return;
  }
  internal::HostAccessRecord& h = state_->hostAccess[handle];
  if (h.tensor.valid() && h.tensor.runs().size() != t.runs().size()) {
    recordError(absl::AlreadyExistsError(absl::StrCat(
        "createHostRead: '", handle, "' already names another tensor")));
    return;
  }
  h.tensor = t;
  h.isRead = true;
}

Graph Graph::createVirtualGraph(unsigned lowerTile, unsigned upperTile) const {
  if (lowerTile >= upperTile || upperTile > target_.getNumTiles()) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        "createVirtualGraph: tiles [", lowerTile, ", ", upperTile,
        ") are not a non-empty range within the graph's ",
        target_.getNumTiles(), " tiles")));
    return *this;
  }
  const unsigned globalLower = tileOffset_ + lowerTile;
  return Graph(state_,
               state_->target.subTarget(globalLower,
                                        tileOffset_ + upperTile),
               globalLower);
}

Graph Graph::createVirtualGraphForIPU(unsigned ipu) const {
  const unsigned n = target_.getTilesPerIPU();
  if (ipu >= target_.getNumIPUs()) {
    recordError(absl::InvalidArgumentError(absl::StrCat(
        "createVirtualGraphForIPU: IPU ", ipu, " is out of range; the graph "
        "has ", target_.getNumIPUs(), " IPUs")));
    return *this;
  }
  return createVirtualGraph(ipu * n, (ipu + 1) * n);
}

}  // namespace poplar_sim
