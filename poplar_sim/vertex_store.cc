#include "poplar_sim/vertex_store.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace poplar_sim {
namespace internal {

bool ConnectionView::connected() const {
  return VertexStore::isConnected(store_.slots_[slot_]);
}

// The accessors below are for connected slots (as their callers check).
Type ConnectionView::elementType() const { return store_.info(store_.slots_[slot_]).type; }

size_t ConnectionView::numElements() const {
  const VertexStore::ConnectionInfo& c = store_.info(store_.slots_[slot_]);
  size_t n = 1;
  for (uint16_t d = 0; d < c.rank; ++d) n *= store_.dims_[c.firstDim + d];
  return n;
}

std::vector<size_t> ConnectionView::shape() const {
  const VertexStore::ConnectionInfo& c = store_.info(store_.slots_[slot_]);
  return std::vector<size_t>(store_.dims_.begin() + c.firstDim,
                             store_.dims_.begin() + c.firstDim + c.rank);
}

std::string ConnectionView::shapeToString() const {
  return poplar_sim::shapeToString(shape());
}

const std::string& ConnectionView::debugName() const {
  return store_.names_[store_.info(store_.slots_[slot_]).name];
}

bool ConnectionView::containsAliases() const {
  return store_.info(store_.slots_[slot_]).aliases;
}

std::vector<ElementRun> ConnectionView::runs() const {
  std::vector<ElementRun> out;
  forEachRun([&](const ElementRun& r) { out.push_back(r); });
  return out;
}

size_t VertexStore::hashRange(RunRange r) const {
  const uint32_t first = static_cast<uint32_t>(r >> 32), n = static_cast<uint32_t>(r);
  size_t h = absl::HashOf(n);
  for (uint32_t i = first; i < first + n; ++i) {
    const PackedRunPattern& p = runs_[i];
    h = absl::HashOf(h, p.var, p.repeat, p.start, p.count, p.stride, p.delta);
  }
  return h;
}

// Packed patterns compared as stored: two equal patterns kept in the side
// table under different indices compare unequal (they are then not shared,
// which is rare and only costs memory).
bool VertexStore::equalRanges(RunRange a, RunRange b) const {
  const uint32_t n = static_cast<uint32_t>(a);
  if (n != static_cast<uint32_t>(b)) return false;
  const uint32_t fa = static_cast<uint32_t>(a >> 32), fb = static_cast<uint32_t>(b >> 32);
  for (uint32_t i = 0; i < n; ++i) {
    const PackedRunPattern& p = runs_[fa + i];
    const PackedRunPattern& q = runs_[fb + i];
    if (p.var != q.var || p.repeat != q.repeat || p.start != q.start || p.count != q.count ||
        p.stride != q.stride || p.delta != q.delta) {
      return false;
    }
  }
  return true;
}

void VertexStore::appendPattern(const RunPattern& p) {
  auto fitsU32 = [](int64_t v) { return v >= 0 && v <= int64_t{UINT32_MAX}; };
  auto fitsI32 = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
  if (p.repeat != 0 && fitsU32(p.start) && fitsU32(p.count) && fitsI32(p.stride) &&
      fitsI32(p.delta)) {
    runs_.push_back(PackedRunPattern{p.var, p.repeat, static_cast<uint32_t>(p.start),
                                     static_cast<uint32_t>(p.count),
                                     static_cast<int32_t>(p.stride),
                                     static_cast<int32_t>(p.delta)});
    return;
  }
  const uint64_t index = wideRuns_.size();
  wideRuns_.push_back(p);
  runs_.push_back(PackedRunPattern{p.var, 0, static_cast<uint32_t>(index),
                                   static_cast<uint32_t>(index >> 32), 0, 0});
}

VertexStore::RunRange VertexStore::findOrRemember(RunRange range) {
  constexpr size_t kMinSlots = 1024, kMaxSlots = 16384;
  if (recentRanges_.empty()) recentRanges_.resize(kMinSlots);
  if (recentRanges_.size() < kMaxSlots && rangesStored_ > 2 * recentRanges_.size()) {
    recentRanges_.assign(4 * recentRanges_.size(), RecentRange{});
    rangesStored_ = 0;
  }
  const size_t h = hashRange(range);
  RecentRange& slot = recentRanges_[h & (recentRanges_.size() - 1)];
  if (slot.range != kNoRange && slot.hash == h && equalRanges(slot.range, range)) {
    return slot.range;
  }
  slot = RecentRange{h, range};
  ++rangesStored_;
  return kNoRange;
}

uint32_t VertexStore::internType(const std::string& name) {
  if (!types_.empty() && types_[lastType_].name == name) return lastType_;
  auto [it, inserted] = typeIds_.emplace(name, static_cast<uint32_t>(types_.size()));
  if (inserted) {
    VertexTypeInfo info;
    info.name = name;
    if (const VertexFactory* factory = VertexRegistry::global().find(name)) {
      info.registered = true;
      // One instance tells the field list; every instance has the same.
      std::unique_ptr<Vertex> instance = (*factory)();
      for (const FieldBase* f : instance->fields()) {
        info.fields.push_back(
            VertexFieldInfo{f->name(), f->direction(), f->type(), f->isVector()});
      }
    }
    types_.push_back(std::move(info));
  }
  lastType_ = it->second;
  return it->second;
}

uint32_t VertexStore::internName(const std::string& name) {
  // The vertices of one operation connect the same few tensors (a
  // product's operands and output) over and over: the names used last are
  // compared before the name is hashed.
  for (const uint32_t id : recentNames_) {
    if (id < names_.size() && names_[id] == name) return id;
  }
  auto [it, inserted] = nameIds_.emplace(name, static_cast<uint32_t>(names_.size()));
  if (inserted) names_.push_back(name);
  std::rotate(recentNames_.rbegin(), recentNames_.rbegin() + 1, recentNames_.rend());
  recentNames_[0] = it->second;
  return it->second;
}

uint32_t VertexStore::internConnectionInfo(const Tensor& t) {
  const uint32_t name = internName(t.getDebugName());
  const std::vector<size_t>& shape = t.shape();
  auto equal = [&](const ConnectionInfo& c) {
    return c.name == name && c.type == t.elementType() && c.aliases == t.containsAliases() &&
           c.rank == shape.size() &&
           std::equal(shape.begin(), shape.end(), dims_.begin() + c.firstDim);
  };
  for (const uint32_t id : recentInfos_) {
    if (id != kEmpty && equal(connectionInfos_[id - kFirstInfo])) return id;
  }
  ConnectionInfo c;
  c.firstDim = static_cast<uint32_t>(dims_.size());
  c.name = name;
  c.rank = static_cast<uint16_t>(shape.size());
  c.type = t.elementType();
  c.aliases = t.containsAliases();
  dims_.insert(dims_.end(), shape.begin(), shape.end());
  connectionInfos_.push_back(c);
  const uint32_t id = static_cast<uint32_t>(connectionInfos_.size() - 1 + kFirstInfo);
  std::rotate(recentInfos_.rbegin(), recentInfos_.rbegin() + 1, recentInfos_.rend());
  recentInfos_[0] = id;
  return id;
}

uint32_t VertexStore::addVertex(const std::string& typeName, unsigned computeSet) {
  VertexEntry e;
  e.type = internType(typeName);
  e.computeSet = computeSet;
  e.firstSlot = static_cast<uint32_t>(slots_.size());
  for (size_t i = 0; i < types_[e.type].fields.size(); ++i) slots_.push_back(FieldSlot{});
  const uint32_t id = static_cast<uint32_t>(vertices_.size());
  vertices_.push_back(e);
  return id;
}

int VertexStore::fieldIndex(uint32_t v, const std::string& field) const {
  const std::vector<VertexFieldInfo>& fields = types_[vertices_[v].type].fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == field) return static_cast<int>(i);
  }
  return -1;
}

void VertexStore::connect(uint32_t v, const std::string& field, const Tensor& t) {
  const int i = fieldIndex(v, field);
  if (i < 0) {
    badNames_.push_back(BadName{v, false, field});
    return;
  }
  if (types_[vertices_[v].type].fields[i].direction == FieldDirection::PARAM) return;
  FieldSlot s;
  s.info = internConnectionInfo(t);
  // Each run joins the connection's last pattern when it continues it
  // (same variable, length and stride, the same step from the run before).
  pendingRuns_.clear();
  for (const ElementRun& r : t.runs()) {
    if (!pendingRuns_.empty()) {
      RunPattern& p = pendingRuns_.back();
      if (p.var == r.var && p.count == r.count && p.stride == r.stride &&
          p.repeat < std::numeric_limits<uint32_t>::max() &&
          (p.repeat == 1 || r.start == p.start + p.repeat * p.delta)) {
        if (p.repeat == 1) p.delta = r.start - p.start;
        ++p.repeat;
        continue;
      }
    }
    pendingRuns_.push_back(RunPattern{r.start, r.count, r.stride, 0, r.var, 1});
  }
  s.a = static_cast<uint32_t>(runs_.size());
  s.b = static_cast<uint32_t>(pendingRuns_.size());
  const size_t wideBefore = wideRuns_.size();
  for (const RunPattern& p : pendingRuns_) appendPattern(p);
  // Share an equal range appended before, if any.
  const RunRange range = (RunRange{s.a} << 32) | s.b;
  if (const RunRange earlier = findOrRemember(range); earlier != kNoRange) {
    runs_.truncate(s.a);
    wideRuns_.resize(wideBefore);
    s.a = static_cast<uint32_t>(earlier >> 32);
  }
  slots_[vertices_[v].firstSlot + i] = s;
}

void VertexStore::setParam(uint32_t v, const std::string& field, double value) {
  const int i = fieldIndex(v, field);
  if (i < 0 || types_[vertices_[v].type].fields[i].direction != FieldDirection::PARAM) {
    badNames_.push_back(BadName{v, true, field});
    return;
  }
  FieldSlot& s = slots_[vertices_[v].firstSlot + i];
  s.info = kParamSet;
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  s.a = static_cast<uint32_t>(bits);
  s.b = static_cast<uint32_t>(bits >> 32);
}

std::optional<uint64_t> VertexStore::perfEstimate(uint32_t v) const {
  auto it = perfEstimates_.find(v);
  if (it == perfEstimates_.end()) return std::nullopt;
  return it->second;
}

ConnectionView VertexStore::connection(uint32_t v, size_t field) const {
  return ConnectionView(*this, vertices_[v].firstSlot + field);
}

std::optional<double> VertexStore::param(uint32_t v, size_t field) const {
  const FieldSlot& s = slots_[vertices_[v].firstSlot + field];
  if (s.info != kParamSet) return std::nullopt;
  const uint64_t bits = uint64_t{s.b} << 32 | s.a;
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

absl::Status VertexStore::checkFieldNames(
    uint32_t v, absl::FunctionRef<std::string()> describe) const {
  const BadName* connection = nullptr;
  const BadName* param = nullptr;
  for (const BadName& b : badNames_) {
    if (b.vertex != v) continue;
    const BadName*& first = b.isParam ? param : connection;
    if (first == nullptr || b.name < first->name) first = &b;
  }
  if (connection != nullptr) {
    std::vector<std::string> names;
    for (const VertexFieldInfo& f : types_[vertices_[v].type].fields) names.push_back(f.name);
    return absl::InvalidArgumentError(absl::StrCat(describe(), " has no field '",
                                                   connection->name, "'; its fields are: ",
                                                   absl::StrJoin(names, ", ")));
  }
  if (param != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(describe(), ": setInitialValue on '", param->name,
                     "', which is not a Param field of the vertex type"));
  }
  return absl::OkStatus();
}

size_t VertexStore::hostBytes() const {
  size_t names = 0;
  for (const std::string& n : names_) names += sizeof(n) + n.capacity();
  return vertices_.size() * sizeof(VertexEntry) + slots_.size() * sizeof(FieldSlot) +
         runs_.size() * sizeof(PackedRunPattern) + wideRuns_.size() * sizeof(RunPattern) +
         connectionInfos_.size() * sizeof(ConnectionInfo) + dims_.size() * sizeof(size_t) + names +
         recentRanges_.capacity() * sizeof(RecentRange) + badNames_.size() * sizeof(BadName) +
         perfEstimates_.size() * (sizeof(uint32_t) + sizeof(uint64_t));
}

}  // namespace internal
}  // namespace poplar_sim
