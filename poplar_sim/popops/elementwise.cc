#include "poplar_sim/popops/elementwise.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/popops/elementwise_host.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/poputil/vertex_layout.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace popops {
namespace {

constexpr uint64_t kVertexOverheadCycles = 20;  // [ASSUMPTION]

// Elementwise arithmetic counts one operation per output element, when it
// computes in a floating-point type.
template <typename T>
uint64_t ElementwiseFlops(size_t n) {
  return isFloatingPoint(TypeOf<T>::value) ? n : 0;
}

uint64_t ElementwiseCycles(const Target& t, Type type, size_t n,
                           unsigned cyclesPerVector) {
  const uint64_t perWorker = uint64_t(t.getVectorWidth(type)) *
                             t.getNumWorkerContexts();
  return kVertexOverheadCycles + (n + perWorker - 1) / perWorker * cyclesPerVector;
}

template <typename T, typename OutT>
class UnaryOpVertex : public MultiVertex {
 public:
  explicit UnaryOpVertex(UnaryOpType op) : op_(op) {}
  Input<Vector<T>> in{this, "in"};
  Output<Vector<OutT>> out{this, "out"};
  bool compute() override {
    if (in.size() != out.size()) return false;
    internal::applyUnary(op_, in.data(), out.data(), out.size());
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return ElementwiseCycles(t, TypeOf<T>::value, out.size(),
                             unaryCyclesPerVector(op_));
  }
  uint64_t getFlopEstimate() const override { return ElementwiseFlops<T>(out.size()); }

 private:
  UnaryOpType op_;
};

template <typename T, typename OutT>
class BinaryOpVertex : public MultiVertex {
 public:
  explicit BinaryOpVertex(BinaryOpType op) : op_(op) {}
  Input<Vector<T>> in1{this, "in1"};
  Input<Vector<T>> in2{this, "in2"};
  Output<Vector<OutT>> out{this, "out"};
  bool compute() override {
    if (in1.size() != out.size() || in2.size() != out.size()) return false;
    internal::applyBinary(op_, in1.data(), in2.data(), out.data(), out.size());
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return ElementwiseCycles(t, TypeOf<T>::value, out.size(),
                             binaryCyclesPerVector(op_));
  }
  uint64_t getFlopEstimate() const override { return ElementwiseFlops<T>(out.size()); }

 private:
  BinaryOpType op_;
};

template <typename T>
void SelectElements(const T* a, const T* b, const bool* c, T* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = c[i] ? a[i] : b[i];
}

template <typename T>
class SelectVertex : public MultiVertex {
 public:
  Input<Vector<T>> in1{this, "in1"};
  Input<Vector<T>> in2{this, "in2"};
  Input<Vector<bool>> in3{this, "in3"};
  Output<Vector<T>> out{this, "out"};
  bool compute() override {
    SelectElements(in1.data(), in2.data(), in3.data(), out.data(), out.size());
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return ElementwiseCycles(t, TypeOf<T>::value, out.size(), 2);
  }
};

template <typename T>
void ScaledAdd(T* data, const T* deltas, float scale, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    data[i] = internal::fromFloat<T>(static_cast<float>(data[i]) +
                                     scale * static_cast<float>(deltas[i]));
  }
}

template <typename T>
class ScaledAddToVertex : public MultiVertex {
 public:
  InOut<Vector<T>> data{this, "data"};
  Input<Vector<T>> deltas{this, "deltas"};
  Param<float> scale{this, "scale"};
  bool compute() override {
    if (data.size() != deltas.size()) return false;
    ScaledAdd(data.data(), deltas.data(), scale, data.size());
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return ElementwiseCycles(t, TypeOf<T>::value, data.size(), 1);
  }
  // A multiply and an add per element.
  uint64_t getFlopEstimate() const override { return 2 * ElementwiseFlops<T>(data.size()); }
};

template <typename T>
void RegisterForType() {
  const Type t = TypeOf<T>::value;
  VertexRegistry& r = VertexRegistry::global();
  for (int i = 0; i < kNumUnaryOps; ++i) {
    const auto op = static_cast<UnaryOpType>(i);
    if (!supportsUnary(op, t)) continue;
    if (unaryOutputType(op, t) == BOOL) {
      (void)r.add(unaryVertexName(op, t), [op] {
        return std::unique_ptr<Vertex>(new UnaryOpVertex<T, bool>(op));
      });
    } else {
      (void)r.add(unaryVertexName(op, t), [op] {
        return std::unique_ptr<Vertex>(new UnaryOpVertex<T, T>(op));
      });
    }
  }
  for (int i = 0; i < kNumBinaryOps; ++i) {
    const auto op = static_cast<BinaryOpType>(i);
    if (!supportsBinary(op, t)) continue;
    if (binaryOutputType(op, t) == BOOL) {
      (void)r.add(binaryVertexName(op, t), [op] {
        return std::unique_ptr<Vertex>(new BinaryOpVertex<T, bool>(op));
      });
    } else {
      (void)r.add(binaryVertexName(op, t), [op] {
        return std::unique_ptr<Vertex>(new BinaryOpVertex<T, T>(op));
      });
    }
  }
  (void)r.add(absl::StrCat("popops::Select<", typeName(t), ">"),
              [] { return std::unique_ptr<Vertex>(new SelectVertex<T>()); });
  if (t != BOOL) {
    (void)r.add(absl::StrCat("popops::ScaledAddTo<", typeName(t), ">"), [] {
      return std::unique_ptr<Vertex>(new ScaledAddToVertex<T>());
    });
  }
}

const bool kRegistered = [] {
  RegisterForType<float>();
  RegisterForType<Eigen::half>();
  RegisterForType<int32_t>();
  RegisterForType<uint32_t>();
  RegisterForType<int64_t>();
  RegisterForType<bool>();
  return true;
}();

using internal::ApplyBinaryInPlace;
using internal::ApplyBinaryRange;
using internal::ForRanges;
using internal::kMinElementsPerRun;
using internal::NeedsSnapshot;
using internal::RepeatPeriod;
using internal::SafeRead;
using internal::UnitStrideRuns;

Tensor Fail(Graph& graph, absl::Status s) {
  graph.recordError(s);
  return Tensor::makeError(std::move(s));
}

// A new tensor of `shape` for the result, mapped like a same-shaped operand
// or linearly.
Tensor AllocateOutput(Graph& graph, Type type, const std::vector<size_t>& shape,
                      const std::vector<Tensor>& operands,
                      const std::string& name) {
  for (const Tensor& t : operands) {
    if (t.shape() == shape && !t.containsAliases()) {
      return graph.clone(type, t, name);
    }
  }
  Tensor out = graph.addVariable(type, shape, name);
  poputil::mapTensorLinearly(graph, out,
                             poputil::defaultMinElementsPerTile(graph, type),
                             graph.getTarget().getVectorWidth(type));
  return out;
}

// Builds out = op(a, b) for operands already checked, which broadcast to
// `shape`, the shape of `out`.
void BuildBinary(Graph& graph, BinaryOpType op, const Tensor& a, const Tensor& b,
                 const std::vector<size_t>& shape, const Tensor& out,
                 program::Sequence& prog, const std::string& name) {
  const Tensor aB = broadcastTo(a, shape), bB = broadcastTo(b, shape);
  poputil::PerTileVertices spec;
  spec.computeSetName = name.empty() ? binaryOpName(op) : name;
  spec.vertexType = binaryVertexName(op, aB.elementType());
  spec.mapping = out;
  spec.fields = {{"in1", aB.flatten()}, {"in2", bB.flatten()}, {"out", out.flatten()}};
  const Type inType = aB.elementType();
  const bool boolOut = binaryOutputType(op, inType) == BOOL;
  // Decided here, not per run: whether one operand is a repeated block,
  // read once and tiled instead of gathered element by element.
  const size_t n = shapeNumElements(shape);
  const size_t periodA = RepeatPeriod(a, shape), periodB = RepeatPeriod(b, shape);
  const bool aRepeats = periodA > 0 && periodA < n && periodB == n;
  const bool bRepeats = periodB > 0 && periodB < n && periodA == n;
  const bool aSnapshot = NeedsSnapshot(aB, out), bSnapshot = NeedsSnapshot(bB, out);
  // Strided views made of stride-1 runs (a pooling window's tap, a column
  // block of an im2col gradient) are computed in place, run by run, rather
  // than gathered and scattered. Views that are each one run already are.
  const bool runByRun = !aRepeats && !bRepeats && !aSnapshot && !bSnapshot &&
                        !(aB.isContiguous() && bB.isContiguous() && out.isContiguous()) &&
                        n > 0 && UnitStrideRuns(aB) && UnitStrideRuns(bB) &&
                        UnitStrideRuns(out) && !out.containsAliases() &&
                        n >= kMinElementsPerRun * (aB.runs().size() + bB.runs().size() +
                                                   out.runs().size());
  // The common case, every operand one stride-1 run read in place (a
  // repeated block that shares no storage with out; a full operand that
  // is out itself or shares none either): an element-wise executor, which
  // the engine may also run part by part together with the compute sets
  // around it that write the same output (execution_context.h).
  const Tensor aRead = aRepeats ? a : aB, bRead = bRepeats ? b : bB;
  const bool elementwise = n > 0 && out.isContiguous() && (aRepeats || periodA == n) &&
                           (bRepeats || periodB == n) && aRead.isContiguous() &&
                           bRead.isContiguous() && !NeedsSnapshot(aRead, out) &&
                           !NeedsSnapshot(bRead, out);
  if (elementwise) {
    const size_t aPeriod = aRepeats ? periodA : 0, bPeriod = bRepeats ? periodB : 0;
    ElementwiseExecutor e;
    e.out = out;
    e.reads = {aRead, bRead};
    e.run = [=](ExecutionContext& ctx, size_t begin, size_t end) {
      dispatchType(inType, [&](auto tag) {
        using T = decltype(tag);
        const T* av = static_cast<const T*>(ctx.contiguousData(aRead));
        const T* bv = static_cast<const T*>(ctx.contiguousData(bRead));
        void* o = ctx.contiguousData(out);
        if (boolOut) {
          ApplyBinaryRange(op, av, aPeriod, bv, bPeriod, static_cast<bool*>(o), begin, end);
        } else {
          ApplyBinaryRange(op, av, aPeriod, bv, bPeriod, static_cast<T*>(o), begin, end);
        }
        return 0;
      });
    };
    graph.setElementwiseExecutor(poputil::addPerTileVertices(graph, spec, prog), std::move(e));
    return;
  }
  spec.bulk = [=](ExecutionContext& ctx) {
    dispatchType(inType, [&](auto tag) {
      using T = decltype(tag);
      auto run = [&](auto outTag) {
        using OutT = decltype(outTag);
        if (runByRun) {
          ApplyBinaryInPlace<T, OutT>(ctx, op, aB, bB, out);
          return;
        }
        if (aRepeats || bRepeats) {
          // The block is copied first: out may overwrite its storage.
          ReadView<T> rep(ctx, aRepeats ? a : b, /*forceCopy=*/true);
          auto full = SafeRead<T>(ctx, aRepeats ? bB : aB, aRepeats ? bSnapshot : aSnapshot);
          WriteView<OutT> ov(ctx, out);
          const T* fullData = full->data();
          const T* repData = rep.data();
          const size_t period = aRepeats ? periodA : periodB;
          OutT* o = ov.data();
          ForRanges(ctx, ov.size(), [&](size_t begin, size_t end) {
            if (aRepeats) {
              ApplyBinaryRange(op, repData, period, fullData, size_t{0}, o, begin, end);
            } else {
              ApplyBinaryRange(op, fullData, size_t{0}, repData, period, o, begin, end);
            }
          });
          return;
        }
        auto av = SafeRead<T>(ctx, aB, aSnapshot);
        auto bv = SafeRead<T>(ctx, bB, bSnapshot);
        WriteView<OutT> ov(ctx, out);
        const T* a = av->data();
        const T* b = bv->data();
        OutT* o = ov.data();
        ForRanges(ctx, ov.size(), [&](size_t begin, size_t end) {
          internal::applyBinary(op, a + begin, b + begin, o + begin, end - begin);
        });
      };
      if (boolOut) {
        run(bool{});
      } else {
        run(T{});
      }
      return 0;
    });
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
}

// out = op(in) element by element, for `in` and `out` of one stride-1 run
// each, the same one (in place) or sharing no storage (execution_context.h).
ElementwiseExecutor UnaryExecutor(UnaryOpType op, const Tensor& in, const Tensor& out) {
  ElementwiseExecutor e;
  e.out = out;
  e.reads = {in};
  const Type inType = in.elementType();
  const bool boolOut = out.elementType() == BOOL && inType != BOOL;
  e.run = [=](ExecutionContext& ctx, size_t begin, size_t end) {
    dispatchType(inType, [&](auto tag) {
      using T = decltype(tag);
      const T* iv = static_cast<const T*>(ctx.contiguousData(in));
      void* o = ctx.contiguousData(out);
      if (boolOut) {
        internal::applyUnary(op, iv + begin, static_cast<bool*>(o) + begin, end - begin);
      } else {
        internal::applyUnary(op, iv + begin, static_cast<T*>(o) + begin, end - begin);
      }
      return 0;
    });
  };
  return e;
}

absl::Status CheckBinary(BinaryOpType op, const Tensor& a, const Tensor& b) {
  if (!a.valid()) return a.status();
  if (!b.valid()) return b.status();
  if (a.elementType() != b.elementType()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "popops ", binaryOpName(op), ": operands '", a.getDebugName(), "' (",
        typeName(a.elementType()), ") and '", b.getDebugName(), "' (",
        typeName(b.elementType()), ") differ in type; cast one first"));
  }
  if (!supportsBinary(op, a.elementType())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "popops ", binaryOpName(op), " is not supported for ",
        typeName(a.elementType()), " operands"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string unaryVertexName(UnaryOpType op, Type t) {
  return absl::StrCat("popops::UnaryOp<", unaryOpName(op), ",", typeName(t), ">");
}

std::string binaryVertexName(BinaryOpType op, Type t) {
  return absl::StrCat("popops::BinaryOp<", binaryOpName(op), ",", typeName(t), ">");
}

absl::StatusOr<std::vector<size_t>> broadcastShapes(
    const std::vector<size_t>& a, const std::vector<size_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<size_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const size_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const size_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shapes ", shapeToString(a), " and ", shapeToString(b),
          " cannot be broadcast together (dimension ", i, ": ", da, " vs ",
          db, ")"));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Tensor broadcastTo(const Tensor& t, const std::vector<size_t>& shape) {
  if (!t.valid()) return t;
  if (t.rank() > shape.size()) {
    return Tensor::makeError(absl::InvalidArgumentError(absl::StrCat(
        "Cannot broadcast '", t.getDebugName(), "' ", t.shapeToString(),
        " to the lower-rank shape ", shapeToString(shape))));
  }
  std::vector<unsigned> lead(shape.size() - t.rank());
  for (unsigned i = 0; i < lead.size(); ++i) lead[i] = i;
  Tensor r = t.expand(lead);
  // A view that cannot be made (an element count past the view's limit)
  // comes back as an error tensor, which has no dimensions to look at.
  for (unsigned d = 0; d < shape.size() && r.valid(); ++d) {
    if (r.dim(d) == shape[d]) continue;
    if (r.dim(d) != 1) {
      return Tensor::makeError(absl::InvalidArgumentError(absl::StrCat(
          "Cannot broadcast '", t.getDebugName(), "' ", t.shapeToString(),
          " to ", shapeToString(shape))));
    }
    if (shape[d] > std::numeric_limits<unsigned>::max()) {
      return Tensor::makeError(absl::InvalidArgumentError(absl::StrCat(
          "Cannot broadcast '", t.getDebugName(), "' ", t.shapeToString(), " to ",
          shapeToString(shape), ": dimension ", d, " would need ", shape[d],
          " copies, and a broadcast makes at most ",
          std::numeric_limits<unsigned>::max())));
    }
    r = r.broadcast(static_cast<unsigned>(shape[d]), d);
  }
  return r;
}

Tensor map(Graph& graph, UnaryOpType op, const Tensor& a,
           program::Sequence& prog, const std::string& debugName) {
  if (!a.valid()) return Fail(graph, a.status());
  if (!supportsUnary(op, a.elementType())) {
    return Fail(graph, absl::InvalidArgumentError(absl::StrCat(
                           "popops ", unaryOpName(op), " is not supported for ",
                           typeName(a.elementType()), " tensor '",
                           a.getDebugName(), "'")));
  }
  const Type outType = unaryOutputType(op, a.elementType());
  Tensor out = AllocateOutput(graph, outType, a.shape(), {a},
                              debugName.empty() ? unaryOpName(op) : debugName);
  // The in-place variant does the work; out is a fresh tensor.
  poputil::PerTileVertices spec;
  spec.computeSetName = debugName.empty() ? unaryOpName(op) : debugName;
  spec.vertexType = unaryVertexName(op, a.elementType());
  spec.mapping = out;
  spec.fields = {{"in", a.flatten()}, {"out", out.flatten()}};
  const Type inType = a.elementType();
  // An operand of one stride-1 run: an element-wise executor
  // (execution_context.h); out is new, so shares nothing with it.
  if (a.numElements() > 0 && a.isContiguous() && out.isContiguous()) {
    graph.setElementwiseExecutor(poputil::addPerTileVertices(graph, spec, prog),
                                 UnaryExecutor(op, a.flatten(), out));
    return out;
  }
  spec.bulk = [=](ExecutionContext& ctx) {
    dispatchType(inType, [&](auto tag) {
      using T = decltype(tag);
      ReadView<T> av(ctx, a);
      auto apply = [&](auto* o, size_t n) {
        ForRanges(ctx, n, [&](size_t begin, size_t end) {
          internal::applyUnary(op, av.data() + begin, o + begin, end - begin);
        });
      };
      if (outType == BOOL) {
        WriteView<bool> ov(ctx, out);
        apply(ov.data(), ov.size());
      } else {
        WriteView<T> ov(ctx, out);
        apply(ov.data(), ov.size());
      }
      return 0;
    });
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
  return out;
}

void mapInPlace(Graph& graph, UnaryOpType op, const Tensor& a,
                program::Sequence& prog, const std::string& debugName) {
  if (!a.valid()) {
    Fail(graph, a.status());
    return;
  }
  if (!supportsUnary(op, a.elementType()) ||
      unaryOutputType(op, a.elementType()) != a.elementType()) {
    Fail(graph, absl::InvalidArgumentError(absl::StrCat(
                    "popops ", unaryOpName(op), " cannot run in place on ",
                    typeName(a.elementType()), " tensor '", a.getDebugName(), "'")));
    return;
  }
  poputil::PerTileVertices spec;
  spec.computeSetName = debugName.empty() ? unaryOpName(op) : debugName;
  spec.vertexType = unaryVertexName(op, a.elementType());
  spec.mapping = a;
  spec.fields = {{"in", a.flatten()}, {"out", a.flatten()}};
  const Type type = a.elementType();
  if (a.numElements() > 0 && a.isContiguous()) {
    graph.setElementwiseExecutor(poputil::addPerTileVertices(graph, spec, prog),
                                 UnaryExecutor(op, a.flatten(), a.flatten()));
    return;
  }
  spec.bulk = [=](ExecutionContext& ctx) {
    dispatchType(type, [&](auto tag) {
      using T = decltype(tag);
      WriteView<T> v(ctx, a, /*readFirst=*/true);
      T* d = v.data();
      ForRanges(ctx, v.size(), [&](size_t begin, size_t end) {
        internal::applyUnary(op, d + begin, d + begin, end - begin);
      });
      return 0;
    });
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
}

Tensor map(Graph& graph, BinaryOpType op, const Tensor& a, const Tensor& b,
           program::Sequence& prog, const std::string& debugName) {
  absl::Status s = CheckBinary(op, a, b);
  if (!s.ok()) return Fail(graph, s);
  auto shape = broadcastShapes(a.shape(), b.shape());
  if (!shape.ok()) return Fail(graph, shape.status());
  Tensor out = AllocateOutput(graph, binaryOutputType(op, a.elementType()),
                              *shape, {a, b},
                              debugName.empty() ? binaryOpName(op) : debugName);
  BuildBinary(graph, op, a, b, *shape, out, prog, debugName);
  return out;
}

void mapTo(Graph& graph, BinaryOpType op, const Tensor& a, const Tensor& b,
           const Tensor& out, program::Sequence& prog,
           const std::string& debugName) {
  absl::Status s = CheckBinary(op, a, b);
  if (s.ok() && !out.valid()) s = out.status();
  if (!s.ok()) {
    Fail(graph, s);
    return;
  }
  auto shape = broadcastShapes(a.shape(), b.shape());
  if (!shape.ok()) {
    Fail(graph, shape.status());
    return;
  }
  if (shapeNumElements(*shape) != out.numElements() ||
      out.elementType() != binaryOutputType(op, a.elementType())) {
    Fail(graph, absl::InvalidArgumentError(absl::StrCat(
                    "popops ", binaryOpName(op), ": the output '",
                    out.getDebugName(), "' ", typeName(out.elementType()),
                    out.shapeToString(), " does not fit the result ",
                    shapeToString(*shape))));
    return;
  }
  BuildBinary(graph, op, a, b, *shape, out.reshape(*shape), prog, debugName);
}

void mapInPlace(Graph& graph, BinaryOpType op, const Tensor& a,
                const Tensor& b, program::Sequence& prog,
                const std::string& debugName) {
  if (a.valid() && binaryOutputType(op, a.elementType()) != a.elementType()) {
    Fail(graph, absl::InvalidArgumentError(absl::StrCat(
                    "popops ", binaryOpName(op), " cannot run in place: its "
                    "result type differs from '", a.getDebugName(), "'")));
    return;
  }
  // b must broadcast to a's shape, not a to b's.
  const Tensor bB = broadcastTo(b, a.shape());
  if (!bB.valid()) {
    Fail(graph, bB.status());
    return;
  }
  mapTo(graph, op, a, b, a, prog, debugName);
}

Tensor select(Graph& graph, const Tensor& a, const Tensor& b,
              const Tensor& cond, program::Sequence& prog,
              const std::string& debugName) {
  absl::Status s = CheckBinary(BinaryOpType::ADD, a, b);
  if (a.valid() && a.elementType() == BOOL) s = absl::OkStatus();
  if (s.ok() && !cond.valid()) s = cond.status();
  if (s.ok() && cond.elementType() != BOOL) {
    s = absl::InvalidArgumentError(absl::StrCat(
        "popops select: the condition '", cond.getDebugName(),
        "' must be bool, not ", typeName(cond.elementType())));
  }
  if (!s.ok()) return Fail(graph, s);
  auto ab = broadcastShapes(a.shape(), b.shape());
  if (!ab.ok()) return Fail(graph, ab.status());
  auto shape = broadcastShapes(*ab, cond.shape());
  if (!shape.ok()) return Fail(graph, shape.status());
  Tensor out = AllocateOutput(graph, a.elementType(), *shape, {a, b},
                              debugName.empty() ? "select" : debugName);
  const Tensor aB = broadcastTo(a, *shape), bB = broadcastTo(b, *shape),
               cB = broadcastTo(cond, *shape);
  poputil::PerTileVertices spec;
  spec.computeSetName = debugName.empty() ? "select" : debugName;
  spec.vertexType = absl::StrCat("popops::Select<", typeName(a.elementType()), ">");
  spec.mapping = out;
  spec.fields = {{"in1", aB.flatten()}, {"in2", bB.flatten()},
                 {"in3", cB.flatten()}, {"out", out.flatten()}};
  const Type type = a.elementType();
  spec.bulk = [=](ExecutionContext& ctx) {
    dispatchType(type, [&](auto tag) {
      using T = decltype(tag);
      ReadView<T> av(ctx, aB), bv(ctx, bB);
      ReadView<bool> cv(ctx, cB);
      WriteView<T> ov(ctx, out);
      ForRanges(ctx, ov.size(), [&](size_t begin, size_t end) {
        SelectElements(av.data() + begin, bv.data() + begin, cv.data() + begin,
                       ov.data() + begin, end - begin);
      });
      return 0;
    });
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
  return out;
}

void scaledAddTo(Graph& graph, const Tensor& a, const Tensor& b, float scale,
                 program::Sequence& prog, const std::string& debugName) {
  absl::Status s = CheckBinary(BinaryOpType::ADD, a, b);
  if (s.ok() && a.shape() != b.shape()) {
    s = absl::InvalidArgumentError(absl::StrCat(
        "popops scaledAddTo: '", a.getDebugName(), "' ", a.shapeToString(),
        " and '", b.getDebugName(), "' ", b.shapeToString(),
        " must have the same shape"));
  }
  if (s.ok() && a.containsAliases()) {
    s = absl::InvalidArgumentError("popops scaledAddTo: the destination repeats elements");
  }
  if (!s.ok()) {
    Fail(graph, s);
    return;
  }
  poputil::PerTileVertices spec;
  spec.computeSetName = debugName.empty() ? "scaledAddTo" : debugName;
  spec.vertexType = absl::StrCat("popops::ScaledAddTo<", typeName(a.elementType()), ">");
  spec.mapping = a;
  spec.fields = {{"data", a.flatten()}, {"deltas", b.flatten()}};
  spec.params = {{"scale", scale}};
  const Type type = a.elementType();
  const bool bSnapshot = NeedsSnapshot(b, a);
  spec.bulk = [=](ExecutionContext& ctx) {
    dispatchType(type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        auto bv = SafeRead<T>(ctx, b, bSnapshot);
        WriteView<T> av(ctx, a, /*readFirst=*/true);
        T* d = av.data();
        const T* deltas = bv->data();
        ForRanges(ctx, av.size(), [&](size_t begin, size_t end) {
          ScaledAdd(d + begin, deltas + begin, scale, end - begin);
        });
      }
      return 0;
    });
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
}

}  // namespace popops
}  // namespace poplar_sim
