#include "poplar_sim/poplin/matmul.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/poplin/matmul_plan_cache.h"
#include "poplar_sim/vertex.h"
#include "third_party/dnnl/one_thread_sgemm.h"

namespace poplar_sim {
namespace poplin {
namespace {

constexpr uint64_t kBlockOverheadCycles = 30;   // [ASSUMPTION] per vertex
constexpr uint64_t kReduceOverheadCycles = 20;  // [ASSUMPTION]

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint64_t BlockWorkerCycles(const Target& t, Type type, uint64_t macs) {
  return kBlockOverheadCycles +
         CeilDiv(macs, uint64_t(t.getMacsPerCycle(type)) * t.getNumWorkerContexts());
}

uint64_t ReduceWorkerCycles(const Target& t, uint64_t inputs) {
  return kReduceOverheadCycles +
         CeilDiv(inputs, uint64_t(t.getVectorWidth(FLOAT)) * t.getNumWorkerContexts());
}

// out[r][c] (+)= sum_k a[r][k] * b[k][c], accumulated in float.
template <typename In, typename Out>
class MatMulBlockVertex : public MultiVertex {
 public:
  Input<Vector<In>> a{this, "a"};
  Input<Vector<In>> b{this, "b"};
  Output<Vector<Out>> out{this, "out"};
  Param<unsigned> rows{this, "rows"};
  Param<unsigned> depth{this, "depth"};
  Param<unsigned> cols{this, "cols"};
  bool compute() override {
    const size_t R = rows, K = depth, C = cols;
    if (a.size() != R * K || b.size() != K * C || out.size() != R * C) return false;
    for (size_t r = 0; r < R; ++r) {
      for (size_t c = 0; c < C; ++c) {
        float acc = 0;
        for (size_t k = 0; k < K; ++k) {
          acc += static_cast<float>(a[r * K + k]) * static_cast<float>(b[k * C + c]);
        }
        out[r * C + c] = static_cast<Out>(acc);
      }
    }
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return BlockWorkerCycles(t, TypeOf<In>::value,
                             uint64_t(unsigned(rows)) * unsigned(depth) * unsigned(cols));
  }
  uint64_t getFlopEstimate() const override {
    return 2 * uint64_t(unsigned(rows)) * unsigned(depth) * unsigned(cols);
  }
};

template <typename Out>
class ReducePartialsVertex : public MultiVertex {
 public:
  Input<Vector<float>> partials{this, "partials"};
  Output<Vector<Out>> out{this, "out"};
  bool compute() override {
    const size_t e = out.size();
    if (e == 0) return true;
    if (partials.size() % e != 0) return false;
    const size_t s = partials.size() / e;
    for (size_t i = 0; i < e; ++i) {
      float acc = 0;
      for (size_t p = 0; p < s; ++p) acc += partials[p * e + i];
      out[i] = static_cast<Out>(acc);
    }
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return ReduceWorkerCycles(t, partials.size());
  }
  uint64_t getFlopEstimate() const override { return partials.size(); }
};

// acc[r][c] += scale * sum_k a[r][k] * b[k][c]: a block of matMulAcc that
// adds its product to the output it accumulates into, as the matrix
// unit's partials can start from memory instead of zero. Costed as the
// product and the scaled add of its outputs.
class MatMulAccBlockVertex : public MultiVertex {
 public:
  Input<Vector<float>> a{this, "a"};
  Input<Vector<float>> b{this, "b"};
  InOut<Vector<float>> acc{this, "acc"};
  Param<unsigned> rows{this, "rows"};
  Param<unsigned> depth{this, "depth"};
  Param<unsigned> cols{this, "cols"};
  Param<float> scale{this, "scale"};
  bool compute() override {
    const size_t R = rows, K = depth, C = cols;
    if (a.size() != R * K || b.size() != K * C || acc.size() != R * C) return false;
    for (size_t r = 0; r < R; ++r) {
      for (size_t c = 0; c < C; ++c) {
        float sum = 0;
        for (size_t k = 0; k < K; ++k) sum += a[r * K + k] * b[k * C + c];
        acc[r * C + c] += float(scale) * sum;
      }
    }
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    const uint64_t outputs = uint64_t(unsigned(rows)) * unsigned(cols);
    return BlockWorkerCycles(t, FLOAT, outputs * unsigned(depth)) +
           ReduceWorkerCycles(t, 2 * outputs);
  }
  uint64_t getFlopEstimate() const override {
    return 2 * uint64_t(unsigned(rows)) * unsigned(cols) * (unsigned(depth) + 1);
  }
};

// acc[i] += scale * sum_p partials[p][i]: the reduction of a matMulAcc whose
// depth is split over tiles.
class ReducePartialsAccVertex : public MultiVertex {
 public:
  Input<Vector<float>> partials{this, "partials"};
  InOut<Vector<float>> acc{this, "acc"};
  Param<float> scale{this, "scale"};
  bool compute() override {
    const size_t e = acc.size();
    if (e == 0) return true;
    if (partials.size() % e != 0) return false;
    const size_t s = partials.size() / e;
    for (size_t i = 0; i < e; ++i) {
      float sum = 0;
      for (size_t p = 0; p < s; ++p) sum += partials[p * e + i];
      acc[i] += float(scale) * sum;
    }
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return ReduceWorkerCycles(t, partials.size() + 2 * acc.size());
  }
  uint64_t getFlopEstimate() const override { return partials.size() + 2 * acc.size(); }
};

const bool kRegistered = [] {
  VertexRegistry& r = VertexRegistry::global();
  (void)r.add("poplin::MatMulBlock<float,float>", [] {
    return std::unique_ptr<Vertex>(new MatMulBlockVertex<float, float>());
  });
  (void)r.add("poplin::MatMulBlock<half,half>", [] {
    return std::unique_ptr<Vertex>(new MatMulBlockVertex<Eigen::half, Eigen::half>());
  });
  (void)r.add("poplin::MatMulBlock<half,float>", [] {
    return std::unique_ptr<Vertex>(new MatMulBlockVertex<Eigen::half, float>());
  });
  (void)r.add("poplin::MatMulAccBlock<float>", [] {
    return std::unique_ptr<Vertex>(new MatMulAccBlockVertex());
  });
  (void)r.add("poplin::ReducePartialsAcc<float>", [] {
    return std::unique_ptr<Vertex>(new ReducePartialsAccVertex());
  });
  (void)r.add("poplin::ReducePartials<float>", [] {
    return std::unique_ptr<Vertex>(new ReducePartialsVertex<float>());
  });
  (void)r.add("poplin::ReducePartials<half>", [] {
    return std::unique_ptr<Vertex>(new ReducePartialsVertex<Eigen::half>());
  });
  return true;
}();

// Candidate block sizes: one per distinct number of blocks.
std::vector<size_t> BlockSizes(size_t dim, unsigned maxSplits) {
  std::vector<size_t> sizes;
  size_t last = 0;
  for (size_t s = 1; s <= std::min<size_t>(dim, maxSplits); ++s) {
    const size_t b = CeilDiv(dim, s);
    if (b != last) sizes.push_back(b);
    last = b;
  }
  return sizes;
}

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

using ColMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

// How the bulk executor reads a float operand, decided when the graph is
// built: in place when its elements are one run in row-major order, or in
// place as a column-major matrix when it is the transpose of such a run (a
// MatMul's transpose_a / transpose_b, and the gradients'); other views are
// gathered into a copy, in row-major order, or, when `eitherOrder` and
// its transpose has fewer runs (the transposed im2col matrix of a
// convolution's weight gradient), in column-major order.
struct FloatOperand {
  Tensor storage;  // the tensor whose elements are read
  bool transposed = false;
  size_t rows = 0, cols = 0;

  static FloatOperand Of(const Tensor& t, bool eitherOrder) {
    FloatOperand o{t, false, t.dim(0), t.dim(1)};
    if (t.isContiguous()) return o;
    const Tensor tt = t.transpose();
    if (tt.isContiguous() || (eitherOrder && tt.runs().size() < t.runs().size())) {
      o.storage = tt;
      o.transposed = true;
    }
    return o;
  }
};

// Whether an operand's storage order may be chosen freely without changing
// any value of the product [m,k] x [k,n]: Eigen then runs it (and each part
// of it split over host threads, at least kHostSplitGrain rows or columns)
// as a blocked GEMM, which copies both operands into packed panels of one
// layout whatever their storage order. Its other paths do not: a product
// with one row or column is a matrix-vector product, and one with
// m + k + n < 20 (EIGEN_GEMM_TO_COEFFBASED_THRESHOLD) a lazy
// coefficient-wise product, whose summation order follows the storage.
bool StorageOrderIsFree(size_t m, size_t k, size_t n) {
  return m >= 2 && n >= 2 && m + k + n >= 20;
}

// Calls f with an Eigen expression of each float operand: a Map over the
// engine's memory, row- or column-major, or over a gathered copy.
template <typename F>
void WithFloatMatrices(ExecutionContext& ctx, const FloatOperand& a, const FloatOperand& b,
                       F&& f) {
  ReadView<float> av(ctx, a.storage), bv(ctx, b.storage);
  const auto r = [](const FloatOperand& o, const ReadView<float>& v) {
    return Eigen::Map<const RowMajor>(v.data(), Eigen::Index(o.rows), Eigen::Index(o.cols));
  };
  const auto c = [](const FloatOperand& o, const ReadView<float>& v) {
    return Eigen::Map<const ColMajor>(v.data(), Eigen::Index(o.rows), Eigen::Index(o.cols));
  };
  if (a.transposed && b.transposed) {
    f(c(a, av), c(b, bv));
  } else if (a.transposed) {
    f(c(a, av), r(b, bv));
  } else if (b.transposed) {
    f(r(a, av), c(b, bv));
  } else {
    f(r(a, av), r(b, bv));
  }
}

// From this many multiply-adds a bulk product is split over the engine's
// host threads (a hand-off costs a few microseconds; 1M multiply-adds take
// about 10). 1M rather than 2M: the micro-batch products of an
// accumulated or pipelined step (8 x 784 x 256) split too, and so do the
// element-wise ops after them over the same ranges, each half staying in
// the cache of the core that wrote it (measured on train_mlp:
// accumulation +20%, pipeline +14%, the plain loop +3%; the Keras CNN
// unchanged).
constexpr size_t kHostSplitMacs = size_t{1} << 20;
// Split boundaries are multiples of this. Eigen's product kernels handle
// the output in register blocks counted from the start of the product (at
// most 3 AVX-512 float vectors, 48), and blocks of different widths add up
// their terms in different orders; aligned pieces keep every element on
// the kernel it has in the whole product, so the values are bit-identical
// however many threads run.
constexpr size_t kHostSplitGrain = 48;

// From this many multiply-adds oneDNN's products are split. Measured on
// the benchmark MLP: the 32x256x128 products (1M) run in 19 us on one
// thread and in 33-40 us split in two (oneDNN's per-call set-up and the
// hand-off outweigh half the work); the micro-batch products of an
// accumulated step (8x784x256, 1.6M) still gain from the split.
constexpr size_t kDnnlSplitMacs = size_t{3} << 19;  // 1.5M

// A product of few rows (a batch through a layer's weights), split by its
// depth into two halves at a multiple of kHostSplitGrain, whatever the
// number of threads (so the sums, and the bits, do not depend on it): each host thread multiplies the rows of B that it
// wrote in the weight update before (that update, and the weight gradient's
// product, split their rows at the same boundary, part i on thread i), and
// the second half's product is added to the first's. Split by output
// columns instead, each core read half of every row of B from the other
// core's cache: the MLP's first layer (32x784x256) took 121 us a training
// step against 77 us for the same product of never-written weights. Only
// for a B that the program may write (not a constant): on constant weights
// the split was slower (inference, about 10%).
bool SplitByDepth(ExecutionContext& ctx, const FloatOperand& a, const FloatOperand& b, size_t m,
                  size_t k, size_t n, const float* av, size_t lda, const float* bv, size_t ldb,
                  float* out) {
  const size_t half = (k + kHostSplitGrain) / (2 * kHostSplitGrain) * kHostSplitGrain;
  std::vector<float> second(m * n);
  std::atomic<bool> ok{true};
  auto multiply = [&](unsigned part) {
    const size_t k0 = part == 0 ? 0 : half, depth = part == 0 ? half : k - half;
    // Columns [k0, k0 + depth) of op(a), rows [k0, k0 + depth) of op(b).
    const float* ap = av + (a.transposed ? k0 * lda : k0);
    const float* bp = bv + (b.transposed ? k0 : k0 * ldb);
    if (!dnnl_one_thread::Sgemm(a.transposed, b.transposed, m, n, depth, ap, lda, bp, ldb,
                                part == 0 ? out : second.data(), n)) {
      ok = false;
    }
  };
  if (ctx.hostThreads() != nullptr) {
    ctx.hostThreads()->parallelFor(2, multiply);
  } else {
    multiply(0);
    multiply(1);
  }
  if (!ok) return false;
  for (size_t i = 0; i < m * n; ++i) out[i] += second[i];
  return true;
}

// The float product [m,k] x [k,n] into `out` (row-major) by oneDNN, when
// that library computes such shapes faster than Eigen
// (third_party/dnnl/one_thread_sgemm.h; the CPU kernels choose the same way).
// From kDnnlSplitMacs it is split over the host threads like Eigen's, each
// block one oneDNN call on one thread; a block's elements have the bits
// they have in the whole product (matmul_test), so the values do not
// depend on the number of threads. False if oneDNN does not take it (the
// caller then uses Eigen).
bool DnnlProduct(ExecutionContext& ctx, const FloatOperand& a, const FloatOperand& b, size_t m,
                 size_t k, size_t n, bool bIsWritten, float* out) {
  if (!dnnl_one_thread::FasterThanEigen(m, n, k)) return false;
  // Each operand's storage is row-major: the matrix itself, or its
  // transpose (then read transposed).
  ReadView<float> av(ctx, a.storage), bv(ctx, b.storage);
  const size_t lda = a.transposed ? m : k, ldb = b.transposed ? k : n;
  auto block = [&](size_t r0, size_t rows, size_t c0, size_t cols) {
    return dnnl_one_thread::SgemmBlock(a.transposed, b.transposed, r0, rows, c0, cols, k,
                                       av.data(), lda, bv.data(), ldb, out, n);
  };
  if (m * n * k < kDnnlSplitMacs) return block(0, m, 0, n);
  std::atomic<bool> ok{true};
  if (bIsWritten && m < kHostSplitGrain && k >= 2 * kHostSplitGrain) {
    return SplitByDepth(ctx, a, b, m, k, n, av.data(), lda, bv.data(), ldb, out);
  }
  const bool byRows = m >= n;
  parallelRanges(
      ctx.hostThreads(), byRows ? m : n,
      [&](size_t first, size_t end) {
        if (!(byRows ? block(first, end - first, 0, n) : block(0, m, first, end - first))) {
          ok = false;
        }
      },
      kHostSplitGrain);
  return ok;
}

// A half tensor as a float row-major matrix.
RowMajor HalfAsFloat(ExecutionContext& ctx, const Tensor& t, size_t rows, size_t cols) {
  ReadView<Eigen::half> h(ctx, t);
  RowMajor m(rows, cols);
  for (size_t i = 0; i < rows * cols; ++i) m.data()[i] = static_cast<float>(h[i]);
  return m;
}

void WriteFloats(ExecutionContext& ctx, const Tensor& out, const float* v, size_t n) {
  if (out.elementType() == FLOAT) {
    WriteView<float> o(ctx, out);
    std::copy(v, v + n, o.data());
  } else {
    WriteView<Eigen::half> o(ctx, out);
    for (size_t i = 0; i < n; ++i) o[i] = Eigen::half(v[i]);
  }
}

// The block vertices of the product a [m,k] x b [k,n] planned as `p`, in
// `cs`: with one block of depth (p.splitK == 1) each writes its block of
// `out` [m,n] (of `vertexType`; with `accumulate`, MatMulAccBlock adding
// scale times its product to the block), else its block of plane s of
// `out` [splitK,m,n], the float partial sums.
void AddBlockVertices(Graph& graph, const ComputeSet& cs, const Tensor& a, const Tensor& b,
                      const MatMulPlan& p, const Tensor& out, const std::string& vertexType,
                      std::optional<float> accumulate) {
  const size_t m = a.dim(0), k = a.dim(1), n = b.dim(1);
  const unsigned sm = p.splitM, sn = p.splitN, sk = p.splitK;
  auto tileOf = [&](unsigned i, unsigned j, unsigned s) {
    return (i * sn + j) * sk + s;
  };
  // The operand blocks, each made once: block (i, s) of A is read by the sn
  // vertices of row i, block (s, j) of B by the sm vertices of column j.
  std::vector<Tensor> aBlocks, bBlocks;
  aBlocks.reserve(size_t{sm} * sk);
  bBlocks.reserve(size_t{sn} * sk);
  for (unsigned i = 0; i < sm; ++i) {
    const size_t r0 = i * p.blockM, r1 = std::min(m, r0 + p.blockM);
    for (unsigned s = 0; s < sk; ++s) {
      const size_t k0 = s * p.blockK, k1 = std::min(k, k0 + p.blockK);
      aBlocks.push_back(a.slice({r0, k0}, {r1, k1}).flatten());
    }
  }
  for (unsigned j = 0; j < sn; ++j) {
    const size_t c0 = j * p.blockN, c1 = std::min(n, c0 + p.blockN);
    for (unsigned s = 0; s < sk; ++s) {
      const size_t k0 = s * p.blockK, k1 = std::min(k, k0 + p.blockK);
      bBlocks.push_back(b.slice({k0, c0}, {k1, c1}).flatten());
    }
  }
  // Each partial plane once: a view of it costs a pass over its rows.
  // Flattened too: a block of one row is then one slice of it (a small
  // product's blocks are single rows, made by the thousand in a deep stack).
  std::vector<Tensor> planes, flatPlanes;
  if (sk > 1) {
    planes.reserve(sk);
    for (unsigned s = 0; s < sk; ++s) {
      planes.push_back(out[s]);
      flatPlanes.push_back(planes.back().flatten());
    }
  }
  const Tensor flatOut = out.flatten();
  // Output block [r0, r1) x [c0, c1) of plane s (or of out), flattened.
  auto outputBlock = [&](unsigned s, size_t r0, size_t r1, size_t c0, size_t c1) {
    if (r1 - r0 == 1) {
      return (sk > 1 ? flatPlanes[s] : flatOut).slice(r0 * n + c0, r0 * n + c1);
    }
    return (sk > 1 ? planes[s] : out).slice({r0, c0}, {r1, c1}).flatten();
  };
  for (unsigned i = 0; i < sm; ++i) {
    const size_t r0 = i * p.blockM, r1 = std::min(m, r0 + p.blockM);
    for (unsigned j = 0; j < sn; ++j) {
      const size_t c0 = j * p.blockN, c1 = std::min(n, c0 + p.blockN);
      for (unsigned s = 0; s < sk; ++s) {
        const size_t k0 = s * p.blockK, k1 = std::min(k, k0 + p.blockK);
        const Tensor outBlock = outputBlock(s, r0, r1, c0, c1);
        // The caller's accumulator keeps its mapping; a new output is
        // mapped where its blocks are computed.
        if (!accumulate.has_value()) graph.setTileMapping(outBlock, tileOf(i, j, s));
        VertexRef v = graph.addVertex(
            cs, vertexType,
            {{"a", aBlocks[size_t{i} * sk + s]},
             {"b", bBlocks[size_t{j} * sk + s]},
             {accumulate.has_value() ? "acc" : "out", outBlock}});
        if (accumulate.has_value()) graph.setInitialValue(v["scale"], *accumulate);
        graph.setInitialValue(v["rows"], r1 - r0);
        graph.setInitialValue(v["depth"], k1 - k0);
        graph.setInitialValue(v["cols"], c1 - c0);
        graph.setTileMapping(v, tileOf(i, j, s));
      }
    }
  }
}

// c [m,n] (row-major) += scale * a b by oneDNN, split over the host threads
// as DnnlProduct splits a product (blocks at multiples of kHostSplitGrain,
// so the bits do not depend on the number of threads). Unchanged and
// false if oneDNN refuses the whole product; an error if it refuses one
// block of a split product (c then holds some blocks' sums).
absl::StatusOr<bool> DnnlProductAcc(ExecutionContext& ctx, const FloatOperand& a,
                                    const FloatOperand& b, size_t m, size_t k, size_t n,
                                    float scale, float* c) {
  ReadView<float> av(ctx, a.storage), bv(ctx, b.storage);
  const size_t lda = a.transposed ? m : k, ldb = b.transposed ? k : n;
  auto block = [&](size_t r0, size_t rows, size_t c0, size_t cols) {
    return dnnl_one_thread::SgemmBlockScaledAdd(a.transposed, b.transposed, r0, rows, c0, cols,
                                                k, scale, av.data(), lda, bv.data(), ldb, c, n);
  };
  if (m * n * k < kDnnlSplitMacs) return block(0, m, 0, n);
  std::atomic<bool> ok{true};
  const bool byRows = m >= n;
  parallelRanges(
      ctx.hostThreads(), byRows ? m : n,
      [&](size_t first, size_t end) {
        if (!(byRows ? block(first, end - first, 0, n) : block(0, m, first, end - first))) {
          ok = false;
        }
      },
      kHostSplitGrain);
  if (!ok) {
    return absl::InternalError(absl::StrCat("oneDNN refused a block of the product [", m, ",", k,
                                            "] x [", k, ",", n, "]"));
  }
  return true;
}

bool SharesVariable(const Tensor& x, const Tensor& y) {
  for (const ElementRun& rx : x.runs()) {
    for (const ElementRun& ry : y.runs()) {
      if (rx.var == ry.var) return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<MatMulPlan> planMatMul(const Target& target, unsigned numTiles,
                                      Type type, size_t m, size_t k, size_t n,
                                      double availableMemoryProportion) {
  const uint64_t es = typeSize(type);
  const uint64_t budget = static_cast<uint64_t>(
      availableMemoryProportion * target.getBytesPerTile());
  const unsigned workers = target.getNumWorkerContexts();
  const uint64_t bpc = target.getExchangeBytesPerCycle();
  MatMulPlan best;
  bool found = false;
  for (size_t bm : BlockSizes(m, numTiles)) {
    const unsigned sm = static_cast<unsigned>(CeilDiv(m, bm));
    for (size_t bn : BlockSizes(n, numTiles / sm)) {
      const unsigned sn = static_cast<unsigned>(CeilDiv(n, bn));
      for (size_t bk : BlockSizes(k, numTiles / (sm * sn))) {
        const unsigned sk = static_cast<unsigned>(CeilDiv(k, bk));
        const uint64_t inBytes = (bm * bk + bk * bn) * es;
        const uint64_t outBytes = bm * bn * (sk > 1 ? 4 : es);
        const uint64_t bytes = inBytes + outBytes;
        if (bytes > budget) continue;
        uint64_t cycles = target.syncCycles(1) + CeilDiv(inBytes, bpc) +
                          workers * BlockWorkerCycles(target, type, bm * bk * bn);
        if (sk > 1) {
          const uint64_t outsPerTile = CeilDiv(bm, sk) * bn;
          cycles += target.syncCycles(1) +
                    CeilDiv((sk - 1) * outsPerTile * 4, bpc) +
                    workers * ReduceWorkerCycles(target, sk * outsPerTile);
        }
        if (!found || cycles < best.estimatedCycles) {
          best = MatMulPlan{sm, sn, sk, bm, bn, bk, cycles, bytes};
          found = true;
        }
      }
    }
  }
  if (!found) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "poplin::matMul [", m, ",", k, "] x [", k, ",", n,
        "]: no split over ", numTiles, " tiles fits in ",
        availableMemoryProportion, " of a tile's ", target.getBytesPerTile(),
        " bytes; use more tiles or raise availableMemoryProportion"));
  }
  return best;
}

Tensor matMul(Graph& graph, const Tensor& a, const Tensor& b,
              program::Sequence& prog, const std::string& debugName,
              const OptionFlags& options) {
  return matMul(graph, a, b, prog, debugName, options, nullptr);
}

Tensor matMul(Graph& graph, const Tensor& a, const Tensor& b,
              program::Sequence& prog, const std::string& debugName,
              const OptionFlags& options, HostProduct hostProduct) {
  auto fail = [&](absl::Status s) {
    graph.recordError(s);
    return Tensor::makeError(std::move(s));
  };
  if (!a.valid()) return fail(a.status());
  if (!b.valid()) return fail(b.status());
  const std::string name = debugName.empty() ? "matMul" : debugName;
  if (a.rank() != 2 || b.rank() != 2 || a.dim(1) != b.dim(0) ||
      a.elementType() != b.elementType() ||
      (a.elementType() != FLOAT && a.elementType() != HALF)) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "poplin::matMul '", name, "': needs float or half matrices [m,k] x "
        "[k,n] of one type, got '", a.getDebugName(), "' ",
        typeName(a.elementType()), a.shapeToString(), " and '",
        b.getDebugName(), "' ", typeName(b.elementType()), b.shapeToString())));
  }
  double proportion = 0.6;
  if (const std::string* p = options.get("availableMemoryProportion")) {
    if (!absl::SimpleAtod(*p, &proportion) || proportion <= 0 || proportion > 1) {
      return fail(absl::InvalidArgumentError(absl::StrCat(
          "poplin::matMul option availableMemoryProportion must be in (0, 1], "
          "not \"", *p, "\"")));
    }
  }
  const Type type = a.elementType();
  const size_t m = a.dim(0), k = a.dim(1), n = b.dim(1);
  // Cached: a deep stack of equal layers plans its one shape once.
  auto plan = MatMulPlanCache::global().plan(graph.getTarget(), graph.getTarget().getNumTiles(),
                                             type, m, k, n, proportion);
  if (!plan.ok()) return fail(plan.status());
  const MatMulPlan p = *plan;
  const unsigned sm = p.splitM, sn = p.splitN, sk = p.splitK;
  auto tileOf = [&](unsigned i, unsigned j, unsigned s) {
    return (i * sn + j) * sk + s;
  };
  Tensor c = graph.addVariable(type, {m, n}, name);
  Tensor partials = sk > 1 ? graph.addVariable(FLOAT, {sk, m, n}, name + "/partials")
                           : c;
  ComputeSet cs = graph.addComputeSet(name);
  const std::string tn = typeName(type);
  const std::string blockType = absl::StrCat(
      "poplin::MatMulBlock<", tn, ",", sk > 1 ? "float" : tn, ">");
  AddBlockVertices(graph, cs, a, b, p, sk > 1 ? partials : c, blockType, std::nullopt);
  // Bulk execution computes the whole product at once. With one partial
  // plane that is straight into the output; with several, into the first
  // plane (as float), which the reduction's bulk executor then copies into
  // the output: the other planes are an on-tile detail of the plan, not
  // materialised (but costed). Each executor so touches only tensors its
  // vertices connect (execution_context.h). One product for the whole
  // matrix (oneDNN's or Eigen's: DnnlProduct).
  const Tensor product = sk > 1 ? partials[0] : c;
  if (type == FLOAT || sk > 1) {
    const bool eitherOrder = StorageOrderIsFree(m, k, n);
    const bool halfOperands = type != FLOAT;
    const FloatOperand fa = FloatOperand::Of(a, eitherOrder),
                       fb = FloatOperand::Of(b, eitherOrder);
    // A constant B (inference weights) is never written, so no core holds
    // its rows: the depth split would only add work (SplitByDepth).
    const bool bIsWritten = !graph.containsConstant(b);
    graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) {
      WriteView<float> cv(ctx, product);
      Eigen::Map<RowMajor> cm(cv.data(), m, n);
      if (hostProduct && !halfOperands && hostProduct(ctx, cv.data())) return absl::OkStatus();
      if (halfOperands) {
        cm = HalfAsFloat(ctx, a, m, k) * HalfAsFloat(ctx, b, k, n);
        return absl::OkStatus();
      }
      if (DnnlProduct(ctx, fa, fb, m, k, n, bIsWritten, cv.data())) return absl::OkStatus();
      WithFloatMatrices(ctx, fa, fb, [&](const auto& am, const auto& bm) {
        if (m * n * k < kHostSplitMacs) {
          cm.noalias() = am * bm;
          return;
        }
        // Large products split over the host threads by output rows, or
        // by columns when the output is wider than tall.
        const bool byRows = m >= n;
        parallelRanges(
            ctx.hostThreads(), byRows ? m : n,
            [&](size_t b, size_t e) {
              const Eigen::Index first = Eigen::Index(b), count = Eigen::Index(e - b);
              if (byRows) {
                cm.middleRows(first, count).noalias() = am.middleRows(first, count) * bm;
              } else {
                cm.middleCols(first, count).noalias() = am * bm.middleCols(first, count);
              }
            },
            kHostSplitGrain);
      });
      return absl::OkStatus();
    });
  } else {
    graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) {
      RowMajor out = HalfAsFloat(ctx, a, m, k) * HalfAsFloat(ctx, b, k, n);
      WriteFloats(ctx, c, out.data(), m * n);
      return absl::OkStatus();
    });
  }
  prog.add(program::Execute(cs));
  if (sk == 1) return c;

  // Sum the partials: the rows of each output block are shared among the
  // sk tiles that computed its partials.
  ComputeSet rcs = graph.addComputeSet(name + "/reduce");
  for (unsigned i = 0; i < sm; ++i) {
    const size_t r0 = i * p.blockM, r1 = std::min(m, r0 + p.blockM);
    const size_t chunk = CeilDiv(r1 - r0, sk);
    for (unsigned j = 0; j < sn; ++j) {
      const size_t c0 = j * p.blockN, c1 = std::min(n, c0 + p.blockN);
      for (unsigned s = 0; s < sk; ++s) {
        const size_t q0 = std::min(r1, r0 + s * chunk), q1 = std::min(r1, q0 + chunk);
        if (q1 <= q0) continue;
        Tensor outRows = c.slice({q0, c0}, {q1, c1});
        graph.setTileMapping(outRows, tileOf(i, j, s));
        VertexRef v = graph.addVertex(
            rcs, absl::StrCat("poplin::ReducePartials<", tn, ">"),
            {{"partials", partials.slice({0, q0, c0}, {sk, q1, c1}).flatten()},
             {"out", outRows.flatten()}});
        graph.setTileMapping(v, tileOf(i, j, s));
      }
    }
  }
  graph.setBulkExecutor(rcs, [=](ExecutionContext& ctx) {
    ReadView<float> p(ctx, product);
    WriteFloats(ctx, c, p.data(), m * n);
    return absl::OkStatus();
  });
  prog.add(program::Execute(rcs));
  return c;
}

void matMulAcc(Graph& graph, const Tensor& c, float k, const Tensor& a, const Tensor& b,
               program::Sequence& prog, const std::string& debugName,
               const OptionFlags& options) {
  auto fail = [&](absl::Status s) { graph.recordError(std::move(s)); };
  if (!c.valid()) return fail(c.status());
  if (!a.valid()) return fail(a.status());
  if (!b.valid()) return fail(b.status());
  const std::string name = debugName.empty() ? "matMulAcc" : debugName;
  if (a.rank() != 2 || b.rank() != 2 || c.rank() != 2 || a.dim(1) != b.dim(0) ||
      c.dim(0) != a.dim(0) || c.dim(1) != b.dim(1) || a.elementType() != FLOAT ||
      b.elementType() != FLOAT || c.elementType() != FLOAT) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "poplin::matMulAcc '", name, "': needs float matrices c [m,n] += k * a [m,k] x b "
        "[k,n], got c '", c.getDebugName(), "' ", typeName(c.elementType()), c.shapeToString(),
        ", a '", a.getDebugName(), "' ", typeName(a.elementType()), a.shapeToString(),
        " and b '", b.getDebugName(), "' ", typeName(b.elementType()), b.shapeToString())));
  }
  if (c.containsAliases()) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "poplin::matMulAcc '", name, "': the accumulator '", c.getDebugName(),
        "' repeats elements; accumulate into a tensor without aliases")));
  }
  if (SharesVariable(c, a) || SharesVariable(c, b)) {
    // The product must be whole before c changes: Poplar's way, a product
    // and then a scaled add.
    Tensor product = matMul(graph, a, b, prog, name, options);
    if (!product.valid()) return;
    ComputeSet acs = graph.addComputeSet(name + "/accumulate");
    const size_t elements = c.numElements();
    const unsigned tiles = graph.getTarget().getNumTiles();
    const size_t perTile = std::max<size_t>(1, CeilDiv(elements, tiles));
    for (size_t e0 = 0, t = 0; e0 < elements; e0 += perTile, ++t) {
      const size_t e1 = std::min(elements, e0 + perTile);
      VertexRef v = graph.addVertex(acs, "poplin::ReducePartialsAcc<float>",
                                    {{"partials", product.flatten().slice(e0, e1)},
                                     {"acc", c.flatten().slice(e0, e1)}});
      graph.setInitialValue(v["scale"], k);
      graph.setTileMapping(v, static_cast<unsigned>(t % tiles));
    }
    graph.setBulkExecutor(acs, [=](ExecutionContext& ctx) {
      ReadView<float> pv(ctx, product);
      WriteView<float> cv(ctx, c, /*readFirst=*/true);
      for (size_t i = 0; i < elements; ++i) cv.data()[i] += k * pv[i];
      return absl::OkStatus();
    });
    prog.add(program::Execute(acs));
    return;
  }
  double proportion = 0.6;
  if (const std::string* p = options.get("availableMemoryProportion")) {
    if (!absl::SimpleAtod(*p, &proportion) || proportion <= 0 || proportion > 1) {
      return fail(absl::InvalidArgumentError(absl::StrCat(
          "poplin::matMulAcc option availableMemoryProportion must be in (0, 1], not \"", *p,
          "\"")));
    }
  }
  const size_t m = a.dim(0), depth = a.dim(1), n = b.dim(1);
  auto plan = MatMulPlanCache::global().plan(graph.getTarget(), graph.getTarget().getNumTiles(),
                                             FLOAT, m, depth, n, proportion);
  if (!plan.ok()) return fail(plan.status());
  const MatMulPlan p = *plan;
  const unsigned sm = p.splitM, sn = p.splitN, sk = p.splitK;
  ComputeSet cs = graph.addComputeSet(name);
  const bool eitherOrder = StorageOrderIsFree(m, depth, n);
  const FloatOperand fa = FloatOperand::Of(a, eitherOrder), fb = FloatOperand::Of(b, eitherOrder);
  if (sk == 1) {
    // Each block adds its product to its block of c: one compute set, and
    // on the host one product added into c (no product tensor at all).
    AddBlockVertices(graph, cs, a, b, p, c, "poplin::MatMulAccBlock<float>", k);
    graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) {
      WriteView<float> cv(ctx, c, /*readFirst=*/true);
      absl::StatusOr<bool> done = DnnlProductAcc(ctx, fa, fb, m, depth, n, k, cv.data());
      if (!done.ok()) return done.status();
      if (!*done) {
        WithFloatMatrices(ctx, fa, fb, [&](const auto& am, const auto& bm) {
          Eigen::Map<RowMajor>(cv.data(), m, n).noalias() += k * (am * bm);
        });
      }
      return absl::OkStatus();
    });
    prog.add(program::Execute(cs));
    return;
  }
  // The depth split over tiles: partial sums as matMul makes them, then
  // each tile adds k times the sum of its rows' partials to c.
  Tensor partials = graph.addVariable(FLOAT, {sk, m, n}, name + "/partials");
  AddBlockVertices(graph, cs, a, b, p, partials, "poplin::MatMulBlock<float,float>",
                   std::nullopt);
  const Tensor product = partials[0];
  const bool bIsWritten = !graph.containsConstant(b);
  graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) {
    WriteView<float> pv(ctx, product);
    if (!DnnlProduct(ctx, fa, fb, m, depth, n, bIsWritten, pv.data())) {
      WithFloatMatrices(ctx, fa, fb, [&](const auto& am, const auto& bm) {
        Eigen::Map<RowMajor>(pv.data(), m, n).noalias() = am * bm;
      });
    }
    return absl::OkStatus();
  });
  prog.add(program::Execute(cs));
  ComputeSet rcs = graph.addComputeSet(name + "/reduce");
  auto tileOf = [&](unsigned i, unsigned j, unsigned s) { return (i * sn + j) * sk + s; };
  for (unsigned i = 0; i < sm; ++i) {
    const size_t r0 = i * p.blockM, r1 = std::min(m, r0 + p.blockM);
    const size_t chunk = CeilDiv(r1 - r0, sk);
    for (unsigned j = 0; j < sn; ++j) {
      const size_t c0 = j * p.blockN, c1 = std::min(n, c0 + p.blockN);
      for (unsigned s = 0; s < sk; ++s) {
        const size_t q0 = std::min(r1, r0 + s * chunk), q1 = std::min(r1, q0 + chunk);
        if (q1 <= q0) continue;
        VertexRef v = graph.addVertex(
            rcs, "poplin::ReducePartialsAcc<float>",
            {{"partials", partials.slice({0, q0, c0}, {sk, q1, c1}).flatten()},
             {"acc", c.slice({q0, c0}, {q1, c1}).flatten()}});
        graph.setInitialValue(v["scale"], k);
        graph.setTileMapping(v, tileOf(i, j, s));
      }
    }
  }
  graph.setBulkExecutor(rcs, [=](ExecutionContext& ctx) {
    ReadView<float> pv(ctx, product);
    WriteView<float> cv(ctx, c, /*readFirst=*/true);
    for (size_t i = 0; i < m * n; ++i) cv.data()[i] += k * pv[i];
    return absl::OkStatus();
  });
  prog.add(program::Execute(rcs));
}

}  // namespace poplin
}  // namespace poplar_sim
