// VertexStore: the vertices of a graph, stored compactly. Internal to
// poplar_sim: Graph writes it, the engine and the cost model read it.
//
// A library adds one vertex per tile and operation, so a graph on 16 IPUs
// holds tens of thousands of vertices; each must cost the host bytes per
// field, not a map of tensors with a run list each (about 2 KB for a
// matmul block vertex before this store, under 200 bytes now). So:
//  - a vertex type is resolved once per graph: its name is interned to an
//    id and its field list (names, directions, element types) read from
//    one instance of the registered class;
//  - a vertex is its type id, compute set and tile, plus one FieldSlot per
//    field of its type, in the type's field order (Graph's calls name a
//    field; it is looked up once, in the type's short field list);
//  - a connection keeps what the engine needs of the tensor, not the
//    tensor: its element runs, appended to one arena for the whole graph
//    with each arithmetic sequence of equal runs stored as one RunPattern
//    (the rows of a block of a matrix are one pattern, however many rows);
//    connections with the same runs share them (the vertices of a matmul
//    that read the same block of an operand), found among the ranges
//    stored recently (a direct-mapped table by hash, see RecentRanges:
//    the vertices that share an operand block are made close together,
//    and a hash set of every range of a large graph cost a cache miss per
//    connection); then its shape, element type and interned debug name,
//    kept once for a run of connections that share them (ConnectionInfo);
//  - a Param's value sits in its slot; per-vertex cycle estimates, rare,
//    in a side table.
// Names that are not fields of the vertex's type are kept aside, so that
// the engine reports them as it always has, when the graph is compiled.
//
//   VertexStore s;
//   uint32_t v = s.addVertex("test::AddVectors", /*computeSet=*/0);
//   s.connect(v, "a", x);
//   s.setTile(v, 3);
//   s.connection(v, 0).forEachRun([](const ElementRun& r) { ... });
#ifndef POPLAR_SIM_VERTEX_STORE_H_
#define POPLAR_SIM_VERTEX_STORE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "poplar_sim/chunked_vector.h"
#include "poplar_sim/tensor.h"
#include "poplar_sim/tile_mapping.h"
#include "poplar_sim/type.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace internal {

// A field of a vertex type, as its class declares it.
struct VertexFieldInfo {
  std::string name;
  FieldDirection direction = FieldDirection::INPUT;
  Type type = Type::FLOAT;
  bool isVector = false;
};

// A vertex type as a graph uses it.
struct VertexTypeInfo {
  std::string name;
  bool registered = false;  // false: unknown to the VertexRegistry
  std::vector<VertexFieldInfo> fields;
};

// `repeat` runs of `count` elements `stride` apart, the k-th starting at
// element start + k * delta of variable `var`.
struct RunPattern {
  int64_t start = 0;
  int64_t count = 0;
  int64_t stride = 1;
  int64_t delta = 0;
  uint32_t var = 0;
  uint32_t repeat = 1;
};

// A RunPattern as the store keeps it: 24 bytes instead of 40 when its
// numbers fit in 32 bits, as nearly all do (a tile's share of a variable),
// since a large graph stores millions. One that does not fit is kept whole
// in a side table: then `repeat` is 0 and start | count << 32 is its index
// there.
struct PackedRunPattern {
  uint32_t var = 0;
  uint32_t repeat = 1;
  uint32_t start = 0;
  uint32_t count = 0;
  int32_t stride = 1;
  int32_t delta = 0;
};

class VertexStore;

// A read-only view of the tensor connected to one field of a vertex.
class ConnectionView {
 public:
  bool connected() const;
  Type elementType() const;
  size_t numElements() const;
  std::vector<size_t> shape() const;
  std::string shapeToString() const;
  const std::string& debugName() const;
  // Tensor::containsAliases of the connected tensor.
  bool containsAliases() const;
  // Calls f(run) for the tensor's ElementRuns, in order: exactly
  // Tensor::runs() of the connected tensor.
  template <typename F>
  void forEachRun(F&& f) const;
  // The runs, materialised.
  std::vector<ElementRun> runs() const;

 private:
  friend class VertexStore;
  ConnectionView(const VertexStore& s, size_t slot) : store_(s), slot_(slot) {}
  const VertexStore& store_;
  size_t slot_;
};

class VertexStore {
 public:
  VertexStore() = default;
  VertexStore(const VertexStore&) = delete;
  VertexStore& operator=(const VertexStore&) = delete;

  // A new vertex of type `typeName` (which may be unknown: see
  // typeInfo().registered) in compute set `computeSet`; returns its id.
  uint32_t addVertex(const std::string& typeName, unsigned computeSet);
  // Connects field `field` of vertex `v` to `t` (a valid tensor), replacing
  // an earlier connection. A Param field ignores connections.
  void connect(uint32_t v, const std::string& field, const Tensor& t);
  void setParam(uint32_t v, const std::string& field, double value);
  void setTile(uint32_t v, unsigned globalTile) { vertices_[v].tile = globalTile; }
  void setPerfEstimate(uint32_t v, uint64_t cycles) { perfEstimates_[v] = cycles; }

  size_t size() const { return vertices_.size(); }
  uint32_t typeId(uint32_t v) const { return vertices_[v].type; }
  const VertexTypeInfo& typeInfo(uint32_t typeId) const { return types_[typeId]; }
  size_t numTypes() const { return types_.size(); }
  unsigned computeSet(uint32_t v) const { return vertices_[v].computeSet; }
  // Global tile, or TileMapping::kUnmapped.
  unsigned tile(uint32_t v) const { return vertices_[v].tile; }
  std::optional<uint64_t> perfEstimate(uint32_t v) const;
  // Field `field` (an index into the type's fields) of vertex `v`.
  ConnectionView connection(uint32_t v, size_t field) const;
  // nullopt if the Param field has not been set.
  std::optional<double> param(uint32_t v, size_t field) const;
  // The error for names given to vertex `v` that its type lacks: the first
  // (by name) connected name that is no field, else the first (by name)
  // initial value on a name that is no Param field. `describe` names the
  // vertex (called only on error). OK if there is none.
  absl::Status checkFieldNames(uint32_t v,
                               absl::FunctionRef<std::string()> describe) const;

  // Entries in the run arena (each an arithmetic sequence of runs).
  size_t numRunPatterns() const { return runs_.size(); }
  // Host bytes of the vertices, slots, arenas (without their spare
  // capacity) and the run-range set.
  size_t hostBytes() const;

 private:
  friend class ConnectionView;
  struct VertexEntry {
    uint32_t type = 0;
    uint32_t computeSet = 0;
    uint32_t tile = TileMapping::kUnmapped;
    uint32_t firstSlot = 0;  // into slots_; one slot per field of the type
  };
  // What a connection keeps of its tensor besides the runs: element type,
  // aliasing, debug name and shape (dims_[firstDim, firstDim + rank)). The
  // vertices of an operation connect tensors of a few shapes and names over
  // and over, so a slot refers to one of these, shared with the
  // connections made just before it (see internConnectionInfo), instead
  // of holding them itself: 12 bytes a slot instead of 24 and a shape
  // stored once per run of equal connections, for the millions of slots of
  // a large graph.
  struct ConnectionInfo {
    uint32_t firstDim = 0;
    uint32_t name = 0;  // into names_
    uint16_t rank = 0;
    Type type = Type::FLOAT;
    bool aliases = false;
  };
  // A field's value: nothing, a Param's value, or a connection (runs_[a,
  // a + b) and connectionInfos_[info - kFirstInfo]). A Param's double is
  // kept as the bits of a and b so that a slot needs no 8-byte alignment.
  struct FieldSlot {
    uint32_t a = 0;
    uint32_t b = 0;
    uint32_t info = kEmpty;
  };
  static constexpr uint32_t kEmpty = 0, kParamSet = 1, kFirstInfo = 2;
  static bool isConnected(const FieldSlot& s) { return s.info >= kFirstInfo; }
  const ConnectionInfo& info(const FieldSlot& s) const {
    return connectionInfos_[s.info - kFirstInfo];
  }
  // A name given to a vertex that is not a field (or not a Param field) of
  // its type.
  struct BadName {
    uint32_t vertex;
    bool isParam;
    std::string name;
  };

  // Pattern i of runs_, unpacked.
  RunPattern pattern(size_t i) const {
    const PackedRunPattern& q = runs_[i];
    if (q.repeat == 0) return wideRuns_[uint64_t{q.count} << 32 | q.start];
    return RunPattern{q.start, q.count, q.stride, q.delta, q.var, q.repeat};
  }
  // Appends `p` to runs_ (and to wideRuns_ when it does not fit).
  void appendPattern(const RunPattern& p);

  // A range of runs_: first << 32 | number of patterns.
  using RunRange = uint64_t;
  size_t hashRange(RunRange r) const;
  bool equalRanges(RunRange a, RunRange b) const;
  // The last range stored under each hash slot: a table of 1,024 slots
  // that grows (emptied) to 16,384 (256 KB, within a core's L2) as the
  // graph grows, so that a small graph pays little and a large one finds
  // most ranges of the last thousands of connections.
  struct RecentRange {
    size_t hash = 0;
    RunRange range = kNoRange;
  };
  static constexpr RunRange kNoRange = ~RunRange{0};
  // A range equal to `range` (just appended) stored before, or kNoRange;
  // remembers `range` otherwise.
  RunRange findOrRemember(RunRange range);

  uint32_t internType(const std::string& name);
  uint32_t internName(const std::string& name);
  // The index (plus kFirstInfo) of a ConnectionInfo equal to what `t`
  // gives, among the few used last, or of a new one.
  uint32_t internConnectionInfo(const Tensor& t);
  // Index of `field` in the type of `v`, or -1.
  int fieldIndex(uint32_t v, const std::string& field) const;

  std::vector<VertexTypeInfo> types_;
  absl::flat_hash_map<std::string, uint32_t> typeIds_;
  uint32_t lastType_ = 0;  // addVertex usually repeats the last type
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, uint32_t> nameIds_;
  // The ids internName returned last, the latest first (~0u: none yet).
  std::array<uint32_t, 4> recentNames_ = {~0u, ~0u, ~0u, ~0u};
  ChunkedVector<VertexEntry> vertices_;
  ChunkedVector<FieldSlot> slots_;
  // Re-connecting a field leaves its old runs and dims unused here: rare,
  // and cheaper than compacting.
  ChunkedVector<PackedRunPattern> runs_;
  std::vector<RunPattern> wideRuns_;
  // connect's patterns before they are packed (a member: no allocation per
  // connection).
  std::vector<RunPattern> pendingRuns_;
  std::vector<RecentRange> recentRanges_;
  size_t rangesStored_ = 0;
  std::vector<ConnectionInfo> connectionInfos_;
  // The infos internConnectionInfo returned last, the latest first.
  std::array<uint32_t, 4> recentInfos_ = {kEmpty, kEmpty, kEmpty, kEmpty};
  std::vector<size_t> dims_;
  absl::flat_hash_map<uint32_t, uint64_t> perfEstimates_;
  std::vector<BadName> badNames_;
};

template <typename F>
void ConnectionView::forEachRun(F&& f) const {
  const VertexStore::FieldSlot& s = store_.slots_[slot_];
  if (!VertexStore::isConnected(s)) return;
  for (uint32_t i = 0; i < s.b; ++i) {
    const RunPattern p = store_.pattern(s.a + i);
    for (uint32_t k = 0; k < p.repeat; ++k) {
      f(ElementRun{p.var, p.start + static_cast<int64_t>(k) * p.delta, p.count,
                   p.stride});
    }
  }
}

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_VERTEX_STORE_H_
