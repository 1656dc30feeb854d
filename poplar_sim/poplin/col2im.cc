#include "poplar_sim/poplin/col2im.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/poputil/window_vertex_params.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace poplin {
namespace {

// [ASSUMPTION] per vertex, and per vector of additions by one worker (a
// load, an add and a store).
constexpr uint64_t kVertexOverheadCycles = 30;
constexpr uint64_t kCyclesPerVector = 2;

// a + b rounded to T: what popops' element-wise add computes.
template <typename T>
T Add(T a, T b) {
  return static_cast<T>(static_cast<float>(a) + static_cast<float>(b));
}

// Input row y of one image: `out` (inCols x channels) from `cols`, the
// rows of the windows of output rows [oyFirst, oyFirst + count) (each
// outCols rows of patch elements).
template <typename T>
void Col2ImRow(const poputil::Window2D& w, const T* cols, size_t oyFirst, size_t count, size_t y,
               T* out) {
  const size_t C = w.channels, patch = w.windowRows * w.windowCols * C;
  std::fill(out, out + w.inCols * C, T(0));
  for (size_t ky = 0; ky < w.windowRows; ++ky) {
    // The window whose tap row ky reads row y: oy * stride - padTop + ky = y.
    if (y + w.padTop < ky || (y + w.padTop - ky) % w.strideRows != 0) continue;
    const size_t oy = (y + w.padTop - ky) / w.strideRows;
    if (oy < oyFirst || oy >= oyFirst + count) continue;
    for (size_t kx = 0; kx < w.windowCols; ++kx) {
      const size_t tap = (ky * w.windowCols + kx) * C;
      // Window ox's tap kx reads column ox * stride - padLeft + kx.
      for (size_t ox = 0; ox < w.outCols; ++ox) {
        if (ox * w.strideCols + kx < w.padLeft) continue;
        const size_t x = ox * w.strideCols + kx - w.padLeft;
        if (x >= w.inCols) break;
        const T* src = cols + ((oy - oyFirst) * w.outCols + ox) * patch + tap;
        T* o = out + x * C;
        for (size_t c = 0; c < C; ++c) o[c] = Add(o[c], src[c]);
      }
    }
  }
}

template <typename T>
class Col2ImRowVertex : public MultiVertex {
 public:
  Input<Vector<T>> cols{this, "cols"};
  Output<Vector<T>> out{this, "out"};
  poputil::WindowVertexParams params{this};
  Param<unsigned> row{this, "row"};
  Param<unsigned> oyFirst{this, "oyFirst"};
  Param<unsigned> windows{this, "windows"};
  bool compute() override {
    const poputil::Window2D w = params.window();
    const size_t patch = w.windowRows * w.windowCols * w.channels;
    if (w.strideRows == 0 || w.strideCols == 0 || out.size() != w.inCols * w.channels ||
        cols.size() < size_t{windows} * w.outCols * patch) {
      return false;
    }
    Col2ImRow<T>(w, cols.data(), oyFirst, windows, row, out.data());
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    const uint64_t perWorker = uint64_t(t.getVectorWidth(TypeOf<T>::value)) *
                               t.getNumWorkerContexts();
    return kVertexOverheadCycles + (work() + perWorker - 1) / perWorker * kCyclesPerVector;
  }
  uint64_t getFlopEstimate() const override { return work() - out.size(); }

 private:
  // The row's zeroing and at most one addition per window element it holds.
  uint64_t work() const {
    const poputil::Window2D w = params.window();
    const uint64_t taps = uint64_t(unsigned(windows)) * w.outCols * w.windowCols * w.channels;
    return out.size() +
           std::min<uint64_t>(taps, uint64_t(out.size()) * w.windowRows * w.windowCols);
  }
};

const bool kRegistered = [] {
  VertexRegistry& r = VertexRegistry::global();
  (void)r.add("poplin::Col2ImRow<float>",
              [] { return std::unique_ptr<Vertex>(new Col2ImRowVertex<float>()); });
  (void)r.add("poplin::Col2ImRow<half>",
              [] { return std::unique_ptr<Vertex>(new Col2ImRowVertex<Eigen::half>()); });
  return true;
}();

Tensor Fail(Graph& graph, absl::Status s) {
  graph.recordError(s);
  return Tensor::makeError(std::move(s));
}

}  // namespace

Tensor col2im(Graph& graph, const Tensor& cols, const poputil::Window2D& w,
              program::Sequence& prog, const std::string& debugName) {
  absl::Status s = cols.status();
  if (s.ok()) s = poputil::validate(w, "poplin::col2im: ");
  if (s.ok() && cols.elementType() != FLOAT && cols.elementType() != HALF) {
    s = absl::InvalidArgumentError(absl::StrCat("poplin::col2im: '", cols.getDebugName(),
                                                "' is ", typeName(cols.elementType()),
                                                "; col2im takes float or half"));
  }
  // The im2col matrix's shape, in arithmetic that cannot wrap round to a
  // shape that happens to match (each size is below 2^32 once validated).
  size_t rows = 0, patch = 0;
  const bool overflows = __builtin_mul_overflow(w.batch, w.outRows, &rows) ||
                         __builtin_mul_overflow(rows, w.outCols, &rows) ||
                         __builtin_mul_overflow(w.windowRows, w.windowCols, &patch) ||
                         __builtin_mul_overflow(patch, w.channels, &patch);
  if (s.ok() && (overflows || cols.shape() != std::vector<size_t>{rows, patch})) {
    s = absl::InvalidArgumentError(absl::StrCat(
        "poplin::col2im: '", cols.getDebugName(), "' ", cols.shapeToString(),
        " is not the im2col matrix [batch * outRows * outCols, windowRows * windowCols * "
        "channels] of the ", poputil::describe(w)));
  }
  if (!s.ok()) return Fail(graph, s);
  const std::string name = debugName.empty() ? "col2im" : debugName;
  const Type type = cols.elementType();
  const size_t rowElems = w.inCols * w.channels, windowRow = w.outCols * patch;
  Tensor dx = graph.addVariable(type, {w.batch, w.inRows, w.inCols, w.channels}, name);
  const std::vector<unsigned> tiles = poputil::mapUnitsEvenly(graph, dx, rowElems);
  const Tensor flatCols = cols.flatten();
  ComputeSet cs = graph.addComputeSet(name);
  for (size_t b = 0; b < w.batch; ++b) {
    for (size_t y = 0; y < w.inRows; ++y) {
      const poputil::CoveringWindows cover =
          poputil::coveringWindows(y, w.strideRows, w.padTop, w.windowRows, w.outRows);
      // A row no window covers reads its image's first window row and
      // writes zeros.
      const size_t first = (b * w.outRows + cover.first) * windowRow;
      const size_t count = std::max<size_t>(cover.count, 1);
      VertexRef v = graph.addVertex(
          cs, absl::StrCat("poplin::Col2ImRow<", typeName(type), ">"),
          {{"cols", flatCols.slice(first, first + count * windowRow)},
           {"out", dx.slice({b, y, 0, 0}, {b + 1, y + 1, w.inCols, w.channels}).flatten()}});
      poputil::WindowVertexParams::set(graph, v, w);
      graph.setInitialValue(v["row"], y);
      graph.setInitialValue(v["oyFirst"], cover.first);
      graph.setInitialValue(v["windows"], cover.count);
      graph.setTileMapping(v, tiles[b * w.inRows + y]);
    }
  }
  // Row by row as the vertices, split over the host threads by rows.
  graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) {
    dispatchType(type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Eigen::half>) {
        ReadView<T> cv(ctx, cols);
        WriteView<T> ov(ctx, dx);
        parallelRanges(ctx.hostThreads(), w.batch * w.inRows, [&](size_t begin, size_t end) {
          for (size_t r = begin; r < end; ++r) {
            const size_t b = r / w.inRows, y = r % w.inRows;
            const poputil::CoveringWindows cover =
                poputil::coveringWindows(y, w.strideRows, w.padTop, w.windowRows, w.outRows);
            Col2ImRow<T>(w, cv.data() + (b * w.outRows + cover.first) * windowRow, cover.first,
                         cover.count, y, ov.data() + r * rowElems);
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

}  // namespace poplin
}  // namespace poplar_sim
