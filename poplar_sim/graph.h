// Graph: variables, constants, tile mappings, compute sets, vertices and
// host streams (poplar::Graph).
//
//   Graph graph(device.getTarget());
//   Tensor v = graph.addVariable(FLOAT, {4}, "v");
//   graph.setTileMapping(v, 0);
//   Tensor c = graph.addConstant<float>(FLOAT, {4}, {1, 2, 3, 4}, "c");
//   graph.setTileMapping(c, 0);
//   ComputeSet cs = graph.addComputeSet("sum");
//   VertexRef vx = graph.addVertex(cs, "SumVertex", {{"in", v}, {"out", out}});
//   graph.setTileMapping(vx, 0);
//   DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, 4);
//
// Building never throws and rarely fails at once: a bad call (a tile out of
// range, an unknown vertex type, a tensor of another graph) records the
// first error in the graph's sticky status(), which Engine construction
// reports. Check status() early to fail fast.
//
// Virtual graphs (createVirtualGraph) share the variables, compute sets and
// streams of their parent but see only a range of its tiles, numbered from
// 0; tensors of a virtual graph can be used in any graph of the family (as
// in Poplar, where one program drives all IPUs).
#ifndef POPLAR_SIM_GRAPH_H_
#define POPLAR_SIM_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "poplar_sim/device.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/target.h"
#include "poplar_sim/tensor.h"
#include "poplar_sim/tile_mapping.h"
#include "poplar_sim/type.h"

namespace poplar_sim {

namespace internal {
struct GraphState;
}  // namespace internal

// A handle to a compute set of a graph.
struct ComputeSet {
  unsigned id = 0;
  uint64_t graphId = 0;  // 0: an empty handle
  // Its debug name, so that an error about a handle used with the wrong
  // graph (which does not know the name) can still name it.
  std::string debugName;
  unsigned getId() const { return id; }
};

// "compute set 'name'", or "an empty compute set handle".
std::string describeComputeSet(const ComputeSet& cs);

class FieldRef;

// A handle to a vertex of a graph.
struct VertexRef {
  unsigned id = 0;
  uint64_t graphId = 0;
  FieldRef operator[](const std::string& field) const;
};

struct FieldRef {
  VertexRef vertex;
  std::string field;
};

inline FieldRef VertexRef::operator[](const std::string& field) const {
  return FieldRef{*this, field};
}

enum class StreamDirection { HOST_TO_DEVICE, DEVICE_TO_HOST };

// A host stream: a FIFO of records of `numElements` elements of `type`.
struct DataStream {
  unsigned id = 0;
  uint64_t graphId = 0;
  std::string handle;
  Type type = FLOAT;
  size_t numElements = 0;
  StreamDirection direction = StreamDirection::HOST_TO_DEVICE;
  bool valid() const { return graphId != 0; }
};

// Per tile (index = tile of the graph), the intervals of a tensor's
// row-major element indices held by that tile.
using TileToTensorMapping = std::vector<std::vector<Interval>>;

// poplar::replication_factor: how many replicas a Graph is built for.
struct replication_factor {
  explicit replication_factor(unsigned v) : value(v) {}
  unsigned value;
};

class Graph {
 public:
  explicit Graph(const Target& target);
  explicit Graph(const Device& device) : Graph(device.getTarget()) {}
  // A replicated graph: `target` (the device's) is split into R replicas of
  // getNumIPUs() / R IPUs each, and the graph describes one of them; the
  // engine runs it on every replica, each with its own copy of every
  // variable and its own stream connections. R must divide the IPU count
  // (else the graph's sticky status is InvalidArgument naming both).
  Graph(const Target& target, replication_factor r);

  // The target this graph sees: one replica's IPUs (a virtual graph sees
  // its tile range only).
  const Target& getTarget() const { return target_; }
  unsigned getReplicationFactor() const;
  // The sticky status of graph construction (shared by virtual graphs).
  absl::Status status() const;

  // --- Tensors -------------------------------------------------------------
  Tensor addVariable(Type type, std::vector<size_t> shape,
                     const std::string& debugName = "");
  // A constant with one value per element, or a single value for all.
  // T is any type with a TypeOf<T>, or double (converted as static_cast).
  template <typename T>
  Tensor addConstant(Type type, std::vector<size_t> shape,
                     absl::Span<const T> values,
                     const std::string& debugName = "") {
    if constexpr (std::is_same_v<T, double>) {
      return addConstantFromDoubles(type, std::move(shape), values, debugName);
    } else {
      return addConstantRaw(type, std::move(shape), TypeOf<T>::value,
                            values.data(), values.size(), debugName);
    }
  }
  template <typename T>
  Tensor addConstant(Type type, std::vector<size_t> shape,
                     std::initializer_list<T> values,
                     const std::string& debugName = "") {
    return addConstant<T>(type, std::move(shape),
                          absl::Span<const T>(values.begin(), values.size()),
                          debugName);
  }
  template <typename T>
  Tensor addConstant(Type type, std::vector<size_t> shape, T value,
                     const std::string& debugName = "") {
    return addConstant<T>(type, std::move(shape), absl::Span<const T>(&value, 1),
                          debugName);
  }
  // A scalar UNSIGNED_INT constant whose value is the index of the replica
  // that reads it (0 in an unreplicated graph). Map it like any tensor.
  Tensor addReplicationIndexConstant(const std::string& debugName = "");
  // A new variable with the shape, type and tile mapping of `t`.
  Tensor clone(const Tensor& t, const std::string& debugName = "");
  // A new variable like `t` but of element type `type`.
  Tensor clone(Type type, const Tensor& t, const std::string& debugName = "");

  // --- Tile mapping ----------------------------------------------------------
  void setTileMapping(const Tensor& t, unsigned tile);
  void setTileMapping(const Tensor& t, const TileToTensorMapping& mapping);
  // Unmapped elements appear in no tile's list.
  TileToTensorMapping getTileMapping(const Tensor& t) const;
  // The same mapping as (tile, interval) pairs, only for the tiles that
  // hold elements: in tile order, each tile's intervals in element order.
  // (getTileMapping's list for every tile of the graph costs more than a
  // small tensor's mapping when a large graph is built.)
  std::vector<std::pair<unsigned, Interval>> getTileIntervals(const Tensor& t) const;
  // True if some element of `t` is an element of a constant (addConstant).
  bool containsConstant(const Tensor& t) const;

  // --- Compute sets and vertices --------------------------------------------
  ComputeSet addComputeSet(const std::string& debugName = "");
  VertexRef addVertex(
      ComputeSet cs, const std::string& vertexType,
      std::initializer_list<std::pair<std::string, Tensor>> connections = {});
  VertexRef addVertex(
      ComputeSet cs, const std::string& vertexType,
      absl::Span<const std::pair<std::string, Tensor>> connections);
  void connect(const FieldRef& field, const Tensor& t);
  void setTileMapping(VertexRef v, unsigned tile);
  // Overrides the vertex type's cycle estimate for this vertex.
  void setPerfEstimate(VertexRef v, uint64_t cycles);
  // Sets a Param<T> field.
  void setInitialValue(const FieldRef& field, double value);
  // poplar_sim extension (see execution_context.h): executes the whole
  // compute set at once instead of vertex by vertex (replacing any
  // element-wise executor).
  void setBulkExecutor(ComputeSet cs, BulkExecutor executor);
  // poplar_sim extension (see execution_context.h): the compute set's host
  // work, element by element, part by part; it replaces the bulk executor.
  // An `out` that is not one stride-1 run is an error (InvalidArgument).
  void setElementwiseExecutor(ComputeSet cs, ElementwiseExecutor executor);
  // Vertices added so far to `cs`.
  std::vector<VertexRef> getComputeSetVertices(ComputeSet cs) const;

  // --- Host data ------------------------------------------------------------
  DataStream addHostToDeviceFIFO(const std::string& handle, Type type,
                                 size_t numElements);
  DataStream addDeviceToHostFIFO(const std::string& handle, Type type,
                                 size_t numElements);
  // Named host access for Engine::writeTensor / Engine::readTensor.
  void createHostWrite(const std::string& handle, const Tensor& t);
  void createHostRead(const std::string& handle, const Tensor& t);

  // --- Virtual graphs ---------------------------------------------------------
  // Tiles [lowerTile, upperTile) of this graph.
  Graph createVirtualGraph(unsigned lowerTile, unsigned upperTile) const;
  // All the tiles of IPU `ipu` of this graph's target.
  Graph createVirtualGraphForIPU(unsigned ipu) const;

  // --- For the engine and libraries ----------------------------------------
  const std::shared_ptr<internal::GraphState>& state() const { return state_; }
  // Global tile of this graph's tile 0.
  unsigned tileOffset() const { return tileOffset_; }
  uint64_t id() const;
  // Records `s` as the sticky error if none is recorded yet.
  void recordError(absl::Status s) const;

 private:
  Graph(std::shared_ptr<internal::GraphState> state, Target target,
        unsigned tileOffset)
      : state_(std::move(state)),
        target_(std::move(target)),
        tileOffset_(tileOffset) {}
  Tensor addConstantFromDoubles(Type type, std::vector<size_t> shape,
                                absl::Span<const double> values,
                                const std::string& debugName);
  Tensor addConstantRaw(Type type, std::vector<size_t> shape, Type srcType,
                        const void* values, size_t numValues,
                        const std::string& debugName);
  // The checks below name the call in their error as `what` says; it is
  // built only for an error (a graph of 100,000 nodes makes millions of
  // these calls, nearly all of them right).
  using What = absl::FunctionRef<std::string()>;
  bool checkTensor(const Tensor& t, const char* what) const;
  bool checkTile(unsigned tile, What what) const;
  // Calls add(tile, begin, end) for the consecutive pieces of `t`'s
  // flattened elements that are mapped to a tile of this graph, in order.
  void forEachMappedPiece(const Tensor& t,
                          absl::FunctionRef<void(unsigned, int64_t, int64_t)> add) const;
  // Records ResourceExhausted naming `t` if mapping code would visit more
  // than kMaxViewRuns of its elements one by one (a strided view of a huge
  // variable): bounded work for any call.
  bool checkMappingWork(const Tensor& t, const char* what, bool cheapReversals) const;
  // Records an error naming `cs` unless it is a compute set of this graph.
  bool checkComputeSet(const ComputeSet& cs, What what) const;
  bool checkComputeSet(const ComputeSet& cs, const char* what) const {
    return checkComputeSet(cs, [what] { return std::string(what); });
  }
  // Records an error naming `v` unless it is a vertex of this graph.
  bool checkVertex(const VertexRef& v, What what) const;
  bool checkVertex(const VertexRef& v, const char* what) const {
    return checkVertex(v, [what] { return std::string(what); });
  }
  DataStream addStream(const std::string& handle, Type type, size_t n,
                       StreamDirection dir);

  std::shared_ptr<internal::GraphState> state_;
  Target target_;
  unsigned tileOffset_ = 0;
};

}  // namespace poplar_sim

#endif  // POPLAR_SIM_GRAPH_H_
