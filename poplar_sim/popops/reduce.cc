#include "poplar_sim/popops/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/popops/expr_types.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/poputil/vertex_layout.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace popops {
namespace {

const char* OpName(Operation op) {
  switch (op) {
    case Operation::ADD: return "ADD";
    case Operation::MUL: return "MUL";
    case Operation::MAX: return "MAX";
    case Operation::MIN: return "MIN";
  }
  return "?";
}

// A sum times the reduction's scale, computed in float.
template <typename C>
C Scaled(C sum, float scale) {
  return internal::fromFloat<C>(static_cast<float>(sum) * scale);
}

// out[i] = op over in[i * r .. (i + 1) * r), times scale for ADD. One
// accumulator in the compute type (float for half), as one worker keeps it.
template <typename TIn, typename TOut>
void ReduceRows(Operation op, float scale, const TIn* in, TOut* out,
                size_t numOut, size_t r) {
  using C = internal::ComputeType<TIn>;
  for (size_t i = 0; i < numOut; ++i) {
    const TIn* row = in + i * r;
    C acc;
    switch (op) {
      case Operation::ADD:
        acc = C(0);
        for (size_t k = 0; k < r; ++k) acc = internal::wrappingAdd(acc, C(row[k]));
        break;
      case Operation::MUL:
        acc = C(1);
        for (size_t k = 0; k < r; ++k) acc = internal::wrappingMultiply(acc, C(row[k]));
        break;
      case Operation::MAX:
        acc = std::numeric_limits<C>::lowest();
        for (size_t k = 0; k < r; ++k) acc = std::max(acc, C(row[k]));
        break;
      case Operation::MIN:
        acc = std::numeric_limits<C>::max();
        for (size_t k = 0; k < r; ++k) acc = std::min(acc, C(row[k]));
        break;
    }
    if (op == Operation::ADD && scale != 1.0f) acc = Scaled(acc, scale);
    out[i] = static_cast<TOut>(acc);
  }
}

// The rows of a view [numOut, r] when every row is r elements `stride`
// apart in one variable, with one stride for all rows (the columns of a
// matrix, as a bias gradient reduces them): the rows can then be read in
// place. They are grouped into bands of rows that start at consecutive
// elements (the columns of one stretch of the matrix), so that a band is
// read as a sweep over memory. Empty when the view is not of that form.
struct StridedRows {
  // Rows whose first `real` elements lie `stride` apart from `start`, the
  // rest (a reduction's padding to whole partials) one repeated element,
  // element padStart of variable padVar.
  struct Band {
    uint32_t var;
    int64_t start;               // element of the band's first row
    std::vector<size_t> rows;    // output rows, in order of their starts
    size_t real = 0;
    uint32_t padVar = 0;
    int64_t padStart = 0;
  };
  int64_t stride = 0;
  std::vector<Band> bands;
};

StridedRows FindStridedRows(const Tensor& in2d, size_t numOut, size_t r) {
  if (numOut == 0 || r < 2 || in2d.runs().empty()) return {};
  const std::vector<ElementRun>& runs = in2d.runs();
  const int64_t stride = runs[0].stride;
  const int64_t rowLength = static_cast<int64_t>(r);
  struct Row {
    uint32_t var;
    int64_t start;
    size_t index;
    size_t real;
    uint32_t padVar;
    int64_t padStart;
  };
  std::vector<Row> rows;
  rows.reserve(numOut);
  for (size_t j = 0; j < runs.size(); ++j) {
    const ElementRun& run = runs[j];
    if (run.stride != stride) return {};
    const int64_t whole = run.count / rowLength * rowLength;
    for (int64_t k = 0; k < whole; k += rowLength) {
      rows.push_back(Row{run.var, run.at(k), rows.size(), r, 0, 0});
    }
    if (whole == run.count) continue;
    // A row ending in padding: the next run repeats one element to the
    // row's end, exactly.
    if (j + 1 >= runs.size()) return {};
    const ElementRun& pad = runs[j + 1];
    const bool oneElement = pad.stride == 0 || pad.count == 1;
    if (!oneElement || pad.count != rowLength - (run.count - whole)) return {};
    rows.push_back(Row{run.var, run.at(whole), rows.size(),
                       static_cast<size_t>(run.count - whole), pad.var, pad.start});
    ++j;
  }
  if (rows.size() != numOut) return {};
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.var != b.var ? a.var < b.var : a.start < b.start;
  });
  StridedRows out;
  out.stride = stride;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const bool extends = i > 0 && row.var == rows[i - 1].var &&
                         row.start == rows[i - 1].start + 1 && row.real == rows[i - 1].real &&
                         (row.real == r || (row.padVar == rows[i - 1].padVar &&
                                            row.padStart == rows[i - 1].padStart));
    if (!extends) {
      out.bands.push_back(
          StridedRows::Band{row.var, row.start, {}, row.real, row.padVar, row.padStart});
    }
    out.bands.back().rows.push_back(row.index);
  }
  return out;
}

// ReduceRows for a view of StridedRows form, read in place: a band's rows
// are walked together, element k of each before element k + 1 of any (a
// sweep over the band's stretch of memory), then the padding. Each output
// still folds its row's elements in order, with the same operations as
// ReduceRows, so the values are the same.
template <typename TIn, typename TOut>
void ReduceStridedRows(ExecutionContext& ctx, Operation op, float scale,
                       const StridedRows& rows, size_t r, TOut* out) {
  using C = internal::ComputeType<TIn>;
  std::vector<C> acc;
  const int64_t stride = rows.stride;
  for (const StridedRows::Band& band : rows.bands) {
    const TIn* base = reinterpret_cast<const TIn*>(ctx.variableData(band.var)) + band.start;
    const size_t n = band.rows.size();
    acc.resize(n);
    C* a = acc.data();
    const C pad = band.real < r ? C(reinterpret_cast<const TIn*>(
                                        ctx.variableData(band.padVar))[band.padStart])
                                : C(0);
    auto sweep = [&](C init, auto f) {
      std::fill(a, a + n, init);
      for (size_t k = 0; k < band.real; ++k) {
        const TIn* p = base + static_cast<int64_t>(k) * stride;
        for (size_t i = 0; i < n; ++i) a[i] = f(a[i], C(p[i]));
      }
      for (size_t k = band.real; k < r; ++k) {
        for (size_t i = 0; i < n; ++i) a[i] = f(a[i], pad);
      }
    };
    switch (op) {
      case Operation::ADD: sweep(C(0), [](C x, C y) { return internal::wrappingAdd(x, y); }); break;
      case Operation::MUL:
        sweep(C(1), [](C x, C y) { return internal::wrappingMultiply(x, y); });
        break;
      case Operation::MAX:
        sweep(std::numeric_limits<C>::lowest(), [](C x, C y) { return std::max(x, y); });
        break;
      case Operation::MIN:
        sweep(std::numeric_limits<C>::max(), [](C x, C y) { return std::min(x, y); });
        break;
    }
    for (size_t i = 0; i < n; ++i) {
      C v = a[i];
      if (op == Operation::ADD && scale != 1.0f) v = Scaled(v, scale);
      out[band.rows[i]] = static_cast<TOut>(v);
    }
  }
}

// Reduces rows of `in` into `out` (out.size() rows of in.size() / out.size()
// elements). TOut differs from TIn only for half, whose partials are float.
template <typename TIn, typename TOut>
class ReduceVertex : public MultiVertex {
 public:
  explicit ReduceVertex(Operation op) : op_(op) {}
  Input<Vector<TIn>> in{this, "in"};
  Output<Vector<TOut>> out{this, "out"};
  Param<float> scale{this, "scale"};
  bool compute() override {
    if (out.size() == 0) return true;
    if (in.size() % out.size() != 0) return false;
    ReduceRows(op_, scale, in.data(), out.data(), out.size(),
               in.size() / out.size());
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    const uint64_t perWorker =
        uint64_t(t.getVectorWidth(TypeOf<TIn>::value)) * t.getNumWorkerContexts();
    // [ASSUMPTION] one vector per cycle, plus a few cycles per output.
    return 20 + (in.size() + perWorker - 1) / perWorker +
           2 * (out.size() + t.getNumWorkerContexts() - 1) /
               t.getNumWorkerContexts();
  }
  // One operation per element reduced, in a floating-point type.
  uint64_t getFlopEstimate() const override {
    return isFloatingPoint(TypeOf<TIn>::value) ? in.size() : 0;
  }

 private:
  Operation op_;
};

std::string VertexName(Operation op, Type in, Type out) {
  if (in == out) {
    return absl::StrCat("popops::Reduce<", OpName(op), ",", typeName(in), ">");
  }
  return absl::StrCat("popops::Reduce<", OpName(op), ",", typeName(in), ",",
                      typeName(out), ">");
}

template <typename TIn, typename TOut>
void Register() {
  for (Operation op : {Operation::ADD, Operation::MUL, Operation::MAX, Operation::MIN}) {
    (void)VertexRegistry::global().add(
        VertexName(op, TypeOf<TIn>::value, TypeOf<TOut>::value),
        [op] { return std::unique_ptr<Vertex>(new ReduceVertex<TIn, TOut>(op)); });
  }
}

const bool kRegistered = [] {
  Register<float, float>();
  Register<Eigen::half, Eigen::half>();
  Register<Eigen::half, float>();  // first stage of a multi-stage half reduction
  Register<float, Eigen::half>();  // its last stage
  Register<int32_t, int32_t>();
  Register<uint32_t, uint32_t>();
  return true;
}();

// Calls f(TIn{}, TOut{}) for the element types of one stage.
template <typename F>
void DispatchStage(Type in, Type out, F&& f) {
  if (in == HALF && out == FLOAT) return f(Eigen::half{}, float{});
  if (in == FLOAT && out == HALF) return f(float{}, Eigen::half{});
  dispatchType(in, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Eigen::half> ||
                  std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t>) {
      f(T{}, T{});
    }
    return 0;
  });
}

// Host memory a bulk stage reads at once: a broadcast input (a Fill of a
// billion elements, which is a view of one scalar) is read in blocks, never
// copied whole.
constexpr size_t kBulkBlockElements = size_t{1} << 20;

// One compute set: out[i] = op over in2d[i] (times scale), each output
// element reduced by the tile that holds it, its inputs exchanged there.
void AddStage(Graph& graph, const Tensor& in2d, const Tensor& out,
              Operation op, float scale, program::Sequence& prog,
              const std::string& name) {
  const Type inType = in2d.elementType(), outType = out.elementType();
  const size_t numOut = in2d.dim(0), r = in2d.dim(1);
  poputil::PerTileVertices spec;
  spec.computeSetName = name;
  spec.vertexType = VertexName(op, inType, outType);
  spec.mapping = out;
  spec.fields = {{"in", in2d}, {"out", out}};
  spec.params = {{"scale", scale}};
  // Rows of one stride other than 0 or 1 (the columns of a matrix) are
  // read in place rather than gathered element by element. Decided here,
  // once.
  auto strided = std::make_shared<const StridedRows>(
      in2d.isContiguous() ? StridedRows{} : FindStridedRows(in2d, numOut, r));
  // Not for stride 0 (a broadcast), which the oneValue path below reads once.
  const bool inPlace = !strided->bands.empty() && strided->stride != 1 && strided->stride != 0;
  spec.bulk = [=](ExecutionContext& ctx) {
    DispatchStage(inType, outType, [&](auto inTag, auto outTag) {
      using TIn = decltype(inTag);
      using TOut = decltype(outTag);
      WriteView<TOut> ov(ctx, out);
      if (inPlace) {
        ReduceStridedRows<TIn, TOut>(ctx, op, scale, *strided, r, ov.data());
        return;
      }
      const size_t rowsPerBlock = std::max<size_t>(1, kBulkBlockElements / std::max<size_t>(r, 1));
      // A broadcast of one element (a Fill): every block holds the same
      // values, so one block is read and reduced for every row range, with
      // the same arithmetic as if each were read.
      const bool oneValue = in2d.runs().size() == 1 && in2d.runs()[0].stride == 0;
      std::unique_ptr<TIn[]> repeated;
      if (oneValue && numOut > 0 && r > 0) {
        TIn v;
        ctx.read(in2d.slice({0, 0}, {1, 1}), &v);
        const size_t n = std::min(numOut, rowsPerBlock) * r;
        repeated.reset(new TIn[n]);
        std::fill(repeated.get(), repeated.get() + n, v);
      }
      for (size_t a = 0; a < numOut; a += rowsPerBlock) {
        const size_t b = std::min(numOut, a + rowsPerBlock);
        if (repeated) {
          ReduceRows(op, scale, repeated.get(), ov.data() + a, b - a, r);
          continue;
        }
        ReadView<TIn> iv(ctx, (a == 0 && b == numOut) ? in2d : in2d.slice(a, b));
        ReduceRows(op, scale, iv.data(), ov.data() + a, b - a, r);
      }
    });
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
}

// The value that leaves a reduction unchanged, to pad a row to whole partials.
double Identity(Operation op, Type type) {
  const bool fp = isFloatingPoint(type);
  switch (op) {
    case Operation::ADD: return 0;
    case Operation::MUL: return 1;
    case Operation::MAX:
      if (fp) return -std::numeric_limits<double>::infinity();
      return type == INT ? std::numeric_limits<int32_t>::lowest() : 0;
    case Operation::MIN:
      if (fp) return std::numeric_limits<double>::infinity();
      return type == INT ? double{std::numeric_limits<int32_t>::max()}
                         : double{std::numeric_limits<uint32_t>::max()};
  }
  return 0;
}

// The length of one first-stage partial for rows of r elements: about one
// worker's share of the whole reduction, between kMinPartialLength and
// kMaxPartialLength, preferring a divisor of r down to half that share (no
// padding, and partials that do not straddle tiles of a linearly mapped
// input).
size_t PartialLength(const Target& t, size_t numOut, size_t r) {
  const size_t slots = size_t{t.getNumTiles()} * t.getNumWorkerContexts();
  const size_t share = (numOut * r + slots - 1) / slots;
  const size_t target =
      std::clamp(share, kMinPartialLength, kMaxPartialLength);
  for (size_t c = target; c >= std::max(kMinPartialLength, target / 2); --c) {
    if (r % c == 0) return c;
  }
  return target;
}

// Maps the partials [numOut * P] of in3d [numOut * P, c] on the tiles that
// hold the first element of their rows, so that a partial is formed where
// its inputs live (as poplibs forms partials per tile); linearly if the
// input repeats elements (a broadcast lives on one tile) or is unmapped.
void MapPartials(Graph& graph, const Tensor& in3d, bool inputHasAliases,
                 const Tensor& partials) {
  const size_t n = partials.numElements();
  if (!inputHasAliases) {
    const Tensor firsts = in3d.slice({0, 0}, {n, 1});
    TileToTensorMapping m = graph.getTileMapping(firsts);
    size_t covered = 0;
    for (const auto& tile : m) {
      for (const Interval& iv : tile) covered += iv.size();
    }
    if (covered == n) {
      graph.setTileMapping(partials, m);
      return;
    }
  }
  poputil::mapTensorLinearly(
      graph, partials,
      poputil::defaultMinElementsPerTile(graph, partials.elementType()));
}

// Reduces in2d [numOut, r] into `out` [numOut]: in one stage if rows are
// short, else into partials of at most kMaxPartialLength elements each,
// which are reduced again (a tree of stages, as poplibs reduces partials
// across tiles). Every accumulator so sums at most kMaxPartialLength values,
// so the rounding error stays that of a float sum of a few thousand terms
// per level, whatever r is.
void ReduceInStages(Graph& graph, Tensor in2d, const Tensor& out,
                    ReduceParams params, program::Sequence& prog,
                    const std::string& name) {
  for (unsigned stage = 0;; ++stage) {
    const size_t numOut = in2d.dim(0), r = in2d.dim(1);
    if (r <= kMaxPartialLength) {
      AddStage(graph, in2d, out, params.op, params.scale, prog,
               stage == 0 ? name : absl::StrCat(name, "/stage", stage));
      return;
    }
    const size_t c = PartialLength(graph.getTarget(), numOut, r);
    const size_t p = (r + c - 1) / c;
    // Before padding: the padding is a broadcast, but the partials' first
    // elements never lie in it.
    const bool inputHasAliases = in2d.containsAliases();
    if (p * c != r) {
      const Type t = in2d.elementType();
      Tensor pad = graph.addConstant<double>(
          t, {1, 1}, Identity(params.op, t), absl::StrCat(name, "/padding"));
      graph.setTileMapping(pad, 0);
      pad = pad.broadcast(numOut, 0).broadcast(p * c - r, 1);
      in2d = numOut == 1
                 ? concat(in2d.flatten(), pad.flatten()).reshape({1, p * c})
                 : concat(in2d, pad, 1);
    }
    const Tensor in3d = in2d.reshape({numOut * p, c});
    const Type partialType =
        in2d.elementType() == HALF ? FLOAT : in2d.elementType();
    Tensor partials = graph.addVariable(partialType, {numOut * p},
                                        absl::StrCat(name, "/partials", stage));
    MapPartials(graph, in3d, inputHasAliases, partials);
    AddStage(graph, in3d, partials, params.op, 1.0f, prog,
             stage == 0 ? name : absl::StrCat(name, "/stage", stage));
    in2d = partials.reshape({numOut, p});
  }
}

}  // namespace

Tensor reduce(Graph& graph, const Tensor& in, const std::vector<size_t>& dims,
              ReduceParams params, program::Sequence& prog,
              const std::string& debugName) {
  if (!in.valid()) {
    graph.recordError(in.status());
    return in;
  }
  const Type type = in.elementType();
  std::vector<bool> reduced(in.rank(), false);
  absl::Status s;
  for (size_t d : dims) {
    if (d >= in.rank() || reduced[d]) {
      s = absl::InvalidArgumentError(absl::StrCat(
          "popops reduce of '", in.getDebugName(), "' ", in.shapeToString(),
          ": dimension ", d, " is out of range or repeated"));
    } else {
      reduced[d] = true;
    }
  }
  if (type != FLOAT && type != HALF && type != INT && type != UNSIGNED_INT) {
    s = absl::InvalidArgumentError(absl::StrCat(
        "popops reduce: unsupported type ", typeName(type), " of '",
        in.getDebugName(), "'"));
  }
  if (!s.ok()) {
    graph.recordError(s);
    return Tensor::makeError(s);
  }
  std::vector<unsigned> perm;
  std::vector<size_t> outShape;
  size_t r = 1;
  for (unsigned d = 0; d < in.rank(); ++d) {
    if (!reduced[d]) {
      perm.push_back(d);
      outShape.push_back(in.dim(d));
    }
  }
  for (unsigned d = 0; d < in.rank(); ++d) {
    if (reduced[d]) {
      perm.push_back(d);
      r *= in.dim(d);
    }
  }
  const size_t numOut = shapeNumElements(outShape);
  const std::string name = debugName.empty() ? absl::StrCat("reduce", OpName(params.op)) : debugName;
  Tensor out = graph.addVariable(type, outShape, name);
  poputil::mapTensorLinearly(graph, out, poputil::defaultMinElementsPerTile(graph, type));
  ReduceInStages(graph, in.dimShuffle(perm).reshape({numOut, r}), out.flatten(),
                 params, prog, name);
  return out;
}
Tensor reduceSum(Graph& g, const Tensor& in, const std::vector<size_t>& dims,
                 program::Sequence& p, const std::string& n) {
  return reduce(g, in, dims, {Operation::ADD}, p, n);
}
Tensor reduceMax(Graph& g, const Tensor& in, const std::vector<size_t>& dims,
                 program::Sequence& p, const std::string& n) {
  return reduce(g, in, dims, {Operation::MAX}, p, n);
}
Tensor reduceMin(Graph& g, const Tensor& in, const std::vector<size_t>& dims,
                 program::Sequence& p, const std::string& n) {
  return reduce(g, in, dims, {Operation::MIN}, p, n);
}

Tensor reduceMean(Graph& g, const Tensor& in, const std::vector<size_t>& dims,
                  program::Sequence& p, const std::string& n) {
  size_t count = 1;
  for (size_t d : dims) {
    if (in.valid() && d < in.rank()) count *= in.dim(d);
  }
  if (in.valid() && !isFloatingPoint(in.elementType())) {
    absl::Status s = absl::InvalidArgumentError(absl::StrCat(
        "popops reduceMean needs a float or half tensor, not '",
        in.getDebugName(), "' of type ", typeName(in.elementType())));
    g.recordError(s);
    return Tensor::makeError(s);
  }
  return reduce(g, in, dims, {Operation::ADD, 1.0f / std::max<size_t>(count, 1)},
                p, n.empty() ? "reduceMean" : n);
}

}  // namespace popops
}  // namespace poplar_sim
