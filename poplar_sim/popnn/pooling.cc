#include "poplar_sim/popnn/pooling.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/poputil/window_rows.h"
#include "poplar_sim/poputil/window_vertex_params.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace popnn {
namespace {

// [ASSUMPTION] per vertex, and per vector of window elements compared (or
// added) by one worker: a load and a max (or a compare, a select and an add).
constexpr uint64_t kVertexOverheadCycles = 30;
constexpr uint64_t kCyclesPerVector = 2;

using poputil::WindowSpan;

// What a row kernel needs of the geometry, with its windows' spans.
struct Geometry : poputil::Window2D {
  explicit Geometry(const poputil::Window2D& w) : Window2D(w) {}
  WindowSpan rows(size_t oy) const {
    return poputil::windowSpan(oy, strideRows, padTop, windowRows, inRows);
  }
  WindowSpan cols(size_t ox) const {
    return poputil::windowSpan(ox, strideCols, padLeft, windowCols, inCols);
  }
};

// One output row (outCols x channels) of maxPool from `in`, the input rows
// of its windows ([rows x inCols x channels], the window's first row first).
template <typename T>
void MaxPoolRow(const Geometry& g, const T* in, size_t rows, T* out) {
  const size_t C = g.channels;
  for (size_t ox = 0; ox < g.outCols; ++ox) {
    const WindowSpan xs = g.cols(ox);
    T* o = out + ox * C;
    bool first = true;
    for (size_t y = 0; y < rows; ++y) {
      for (size_t x = xs.begin; x < xs.end; ++x) {
        const T* p = in + (y * g.inCols + x) * C;
        if (first) {
          std::copy(p, p + C, o);
          first = false;
          continue;
        }
        for (size_t c = 0; c < C; ++c) {
          if (p[c] > o[c]) o[c] = p[c];
        }
      }
    }
  }
}

// Adds the gradient rows [oyFirst, oyFirst + count) of one image (`grad`,
// each outCols x channels) to `acc` at the first maximum of each window,
// found in `in`, the image's input rows from `inRowFirst`. `acc` holds the
// input rows from `accRowFirst` on, `accRows` of them; a maximum outside
// them is skipped. Windows go in order, so each element adds its values in
// the order the CPU kernel does.
template <typename T>
void AddWindowGradients(const Geometry& g, const T* in, size_t inRowFirst, const T* grad,
                        size_t oyFirst, size_t count, float* acc, size_t accRowFirst,
                        size_t accRows) {
  const size_t C = g.channels, rowElems = g.inCols * C;
  // Per channel, the offset in `in` of the window's first maximum so far
  // and its value (kept beside it, so that the comparisons vectorise).
  std::vector<size_t> arg(C);
  std::vector<T> best(C);
  // Whether every maximum lands in `acc` (the windows lie in rows
  // [inRowFirst, inRows)), which then needs no row check.
  const bool allRows = accRowFirst <= inRowFirst && accRowFirst + accRows >= g.inRows;
  for (size_t i = 0; i < count; ++i) {
    const size_t oy = oyFirst + i;
    const WindowSpan ys = g.rows(oy);
    for (size_t ox = 0; ox < g.outCols; ++ox) {
      const WindowSpan xs = g.cols(ox);
      if (ys.begin >= ys.end || xs.begin >= xs.end) continue;  // refused when built
      const size_t first = (ys.begin - inRowFirst) * rowElems + xs.begin * C;
      for (size_t c = 0; c < C; ++c) {
        arg[c] = first + c;
        best[c] = in[first + c];
      }
      for (size_t y = ys.begin; y < ys.end; ++y) {
        for (size_t x = xs.begin; x < xs.end; ++x) {
          const size_t at = (y - inRowFirst) * rowElems + x * C;
          const T* p = in + at;
          for (size_t c = 0; c < C; ++c) {
            const bool greater = p[c] > best[c];
            best[c] = greater ? p[c] : best[c];
            arg[c] = greater ? at + c : arg[c];
          }
        }
      }
      const T* gv = grad + (i * g.outCols + ox) * C;
      if (allRows) {
        float* a = acc + (inRowFirst - accRowFirst) * rowElems;
        for (size_t c = 0; c < C; ++c) a[arg[c]] += static_cast<float>(gv[c]);
        continue;
      }
      for (size_t c = 0; c < C; ++c) {
        const size_t row = inRowFirst + arg[c] / rowElems;
        if (row < accRowFirst || row >= accRowFirst + accRows) continue;
        acc[(row - accRowFirst) * rowElems + arg[c] % rowElems] += static_cast<float>(gv[c]);
      }
    }
  }
}

template <typename T>
class MaxPoolRowVertex : public MultiVertex {
 public:
  Input<Vector<T>> in{this, "in"};
  Output<Vector<T>> out{this, "out"};
  poputil::WindowVertexParams params{this};
  bool compute() override {
    const Geometry g(params.window());
    const size_t rowElems = g.inCols * g.channels;
    if (rowElems == 0 || in.size() % rowElems || out.size() != g.outCols * g.channels) {
      return false;
    }
    MaxPoolRow<T>(g, in.data(), in.size() / rowElems, out.data());
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    const uint64_t perWorker = uint64_t(t.getVectorWidth(TypeOf<T>::value)) *
                               t.getNumWorkerContexts();
    return kVertexOverheadCycles + (compared() + perWorker - 1) / perWorker * kCyclesPerVector;
  }
  uint64_t getFlopEstimate() const override { return compared(); }

 private:
  // Every output element compared with each input of its window's rows.
  uint64_t compared() const {
    const poputil::Window2D w = params.window();
    const uint64_t rowElems = uint64_t(w.inCols) * w.channels;
    return rowElems == 0 ? 0 : out.size() * (in.size() / rowElems) * w.windowCols;
  }
};

// Input row `row` of one image's gradient: the windows of output rows
// [oyFirst, oyFirst + windows) cover it; `in` holds the input rows they
// read, from `inRowFirst`, and `grad` their gradient rows.
template <typename T>
class MaxPoolGradRowVertex : public MultiVertex {
 public:
  Input<Vector<T>> in{this, "in"};
  Input<Vector<T>> grad{this, "grad"};
  Output<Vector<T>> out{this, "out"};
  poputil::WindowVertexParams params{this};
  Param<unsigned> row{this, "row"};
  Param<unsigned> inRowFirst{this, "inRowFirst"};
  Param<unsigned> oyFirst{this, "oyFirst"};
  Param<unsigned> windows{this, "windows"};
  bool compute() override {
    const Geometry g(params.window());
    const size_t rowElems = g.inCols * g.channels;
    if (rowElems == 0 || g.strideRows == 0 || g.strideCols == 0 || out.size() != rowElems ||
        in.size() % rowElems || grad.size() < size_t{windows} * g.outCols * g.channels) {
      return false;
    }
    // Every window must lie within the rows given.
    const size_t inRowsGiven = in.size() / rowElems;
    for (size_t i = 0; i < windows; ++i) {
      const WindowSpan ys = g.rows(oyFirst + i);
      if (ys.begin < inRowFirst || ys.end > inRowFirst + inRowsGiven) return false;
    }
    std::vector<float> acc(rowElems, 0.f);
    AddWindowGradients<T>(g, in.data(), inRowFirst, grad.data(), oyFirst, windows, acc.data(),
                          row, 1);
    for (size_t i = 0; i < rowElems; ++i) out[i] = static_cast<T>(acc[i]);
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    const uint64_t perWorker = uint64_t(t.getVectorWidth(TypeOf<T>::value)) *
                               t.getNumWorkerContexts();
    const uint64_t work = getFlopEstimate() + out.size();  // and the zeroed row
    return kVertexOverheadCycles + (work + perWorker - 1) / perWorker * kCyclesPerVector;
  }
  uint64_t getFlopEstimate() const override {
    const poputil::Window2D w = params.window();
    return uint64_t(unsigned(windows)) * w.outCols * w.channels *
           (uint64_t(w.windowRows) * w.windowCols + 1);
  }
};

template <typename T>
void Register() {
  VertexRegistry& r = VertexRegistry::global();
  const std::string tn = typeName(TypeOf<T>::value);
  (void)r.add(absl::StrCat("popnn::MaxPoolRow<", tn, ">"),
              [] { return std::unique_ptr<Vertex>(new MaxPoolRowVertex<T>()); });
  (void)r.add(absl::StrCat("popnn::MaxPoolGradRow<", tn, ">"),
              [] { return std::unique_ptr<Vertex>(new MaxPoolGradRowVertex<T>()); });
}

const bool kRegistered = [] {
  Register<float>();
  Register<Eigen::half>();
  return true;
}();

Tensor Fail(Graph& graph, absl::Status s) {
  graph.recordError(s);
  return Tensor::makeError(std::move(s));
}

absl::Status Check(const Tensor& in, const MaxPoolParams& p, const char* what) {
  if (!in.valid()) return in.status();
  const std::string where = absl::StrCat("popnn ", what, ": ");
  if (in.elementType() != FLOAT && in.elementType() != HALF) {
    return absl::InvalidArgumentError(absl::StrCat(where, "'", in.getDebugName(), "' is ",
                                                   typeName(in.elementType()),
                                                   "; pooling takes float or half"));
  }
  absl::Status geometry = poputil::validate(p, where);
  if (!geometry.ok()) return geometry;
  if (in.shape() != std::vector<size_t>{p.batch, p.inRows, p.inCols, p.channels}) {
    return absl::InvalidArgumentError(absl::StrCat(where, "'", in.getDebugName(), "' ",
                                                   in.shapeToString(), " does not match the ",
                                                   poputil::describe(p)));
  }
  return absl::OkStatus();
}

}  // namespace

Tensor maxPool(Graph& graph, const Tensor& in, const MaxPoolParams& p, program::Sequence& prog,
               const std::string& debugName) {
  const absl::Status s = Check(in, p, "maxPool");
  if (!s.ok()) return Fail(graph, s);
  const std::string name = debugName.empty() ? "maxPool" : debugName;
  const Type type = in.elementType();
  const std::string tn = typeName(type);
  Tensor out = graph.addVariable(type, {p.batch, p.outRows, p.outCols, p.channels}, name);
  const size_t outRowElems = p.outCols * p.channels;
  const std::vector<unsigned> tiles = poputil::mapUnitsEvenly(graph, out, outRowElems);
  const Geometry g(p);
  ComputeSet cs = graph.addComputeSet(name);
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t oy = 0; oy < p.outRows; ++oy) {
      const WindowSpan ys = g.rows(oy);
      VertexRef v = graph.addVertex(
          cs, absl::StrCat("popnn::MaxPoolRow<", tn, ">"),
          {{"in", in.slice({b, ys.begin, 0, 0}, {b + 1, ys.end, p.inCols, p.channels}).flatten()},
           {"out", out.slice({b, oy, 0, 0}, {b + 1, oy + 1, p.outCols, p.channels}).flatten()}});
      poputil::WindowVertexParams::set(graph, v, p);
      graph.setTileMapping(v, tiles[b * p.outRows + oy]);
    }
  }
  // The whole pooling at once, split over the host threads by output rows
  // (each computed as its vertex would).
  graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) {
    dispatchType(type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Eigen::half>) {
        ReadView<T> iv(ctx, in);
        WriteView<T> ov(ctx, out);
        const size_t image = p.inRows * p.inCols * p.channels;
        parallelRanges(ctx.hostThreads(), p.batch * p.outRows, [&](size_t first, size_t end) {
          for (size_t r = first; r < end; ++r) {
            const size_t b = r / p.outRows;
            const WindowSpan ys = g.rows(r % p.outRows);
            MaxPoolRow<T>(g, iv.data() + b * image + ys.begin * p.inCols * p.channels,
                          ys.end - ys.begin, ov.data() + r * outRowElems);
          }
        });
      }
      return 0;
    });
    return absl::OkStatus();
  });
  prog.add(program::Execute(cs));
  return out;
}

Tensor maxPoolInputGradient(Graph& graph, const Tensor& in, const Tensor& outGradient,
                            const MaxPoolParams& p, program::Sequence& prog,
                            const std::string& debugName) {
  absl::Status s = Check(in, p, "maxPoolInputGradient");
  if (s.ok()) s = outGradient.status();
  if (s.ok() && (outGradient.elementType() != in.elementType() ||
                 outGradient.shape() !=
                     std::vector<size_t>{p.batch, p.outRows, p.outCols, p.channels})) {
    s = absl::InvalidArgumentError(absl::StrCat(
        "popnn maxPoolInputGradient: the output gradient '", outGradient.getDebugName(), "' ",
        typeName(outGradient.elementType()), outGradient.shapeToString(),
        " must have the input's type and the output's shape (", poputil::describe(p), ")"));
  }
  if (!s.ok()) return Fail(graph, s);
  const std::string name = debugName.empty() ? "maxPoolInputGradient" : debugName;
  const Type type = in.elementType();
  const std::string tn = typeName(type);
  Tensor dx = graph.addVariable(type, {p.batch, p.inRows, p.inCols, p.channels}, name);
  const size_t rowElems = p.inCols * p.channels;
  const std::vector<unsigned> tiles = poputil::mapUnitsEvenly(graph, dx, rowElems);
  const Geometry g(p);
  ComputeSet cs = graph.addComputeSet(name);
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t y = 0; y < p.inRows; ++y) {
      const poputil::CoveringWindows cover =
          poputil::coveringWindows(y, p.strideRows, p.padTop, p.windowRows, p.outRows);
      // A row no window covers reads row y and gradient row 0 and uses
      // neither (its vertex writes zeros).
      size_t inFirst = y, inEnd = y + 1, oyFirst = 0, oyEnd = 1;
      if (cover.count > 0) {
        inFirst = g.rows(cover.first).begin;
        inEnd = g.rows(cover.first + cover.count - 1).end;
        oyFirst = cover.first;
        oyEnd = cover.first + cover.count;
      }
      VertexRef v = graph.addVertex(
          cs, absl::StrCat("popnn::MaxPoolGradRow<", tn, ">"),
          {{"in", in.slice({b, inFirst, 0, 0}, {b + 1, inEnd, p.inCols, p.channels}).flatten()},
           {"grad", outGradient.slice({b, oyFirst, 0, 0}, {b + 1, oyEnd, p.outCols, p.channels})
                        .flatten()},
           {"out", dx.slice({b, y, 0, 0}, {b + 1, y + 1, p.inCols, p.channels}).flatten()}});
      poputil::WindowVertexParams::set(graph, v, p);
      graph.setInitialValue(v["row"], y);
      graph.setInitialValue(v["inRowFirst"], inFirst);
      graph.setInitialValue(v["oyFirst"], oyFirst);
      graph.setInitialValue(v["windows"], cover.count);
      graph.setTileMapping(v, tiles[b * p.inRows + y]);
    }
  }
  // Image by image (windows of two images never overlap), each thread with
  // its own float accumulator: the same additions in the same order as the
  // vertices, and as the CPU kernel.
  graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) {
    dispatchType(type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Eigen::half>) {
        ReadView<T> iv(ctx, in), gv(ctx, outGradient);
        WriteView<T> ov(ctx, dx);
        const size_t image = p.inRows * rowElems, outImage = p.outRows * p.outCols * p.channels;
        parallelRanges(ctx.hostThreads(), p.batch, [&](size_t first, size_t end) {
          std::vector<float> acc(image);
          for (size_t b = first; b < end; ++b) {
            std::fill(acc.begin(), acc.end(), 0.f);
            AddWindowGradients<T>(g, iv.data() + b * image, 0, gv.data() + b * outImage, 0,
                                  p.outRows, acc.data(), 0, p.inRows);
            T* o = ov.data() + b * image;
            for (size_t i = 0; i < image; ++i) o[i] = static_cast<T>(acc[i]);
          }
        });
      }
      return 0;
    });
    return absl::OkStatus();
  });
  prog.add(program::Execute(cs));
  return dx;
}

}  // namespace popnn
}  // namespace poplar_sim
