// The host execution of poplin's float products: oneDNN's GEMM over the
// engine's memory (in place when an operand is one run, row- or
// column-major), split over the host threads at boundaries that keep the
// bits independent of their number.
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/poplin/matmul_internal.h"
#include "third_party/dnnl/one_thread_sgemm.h"

namespace poplar_sim {
namespace poplin {
namespace matmul_internal {

FloatOperand FloatOperand::Of(const Tensor& t, bool eitherOrder) {
  FloatOperand o{t, false, t.dim(0), t.dim(1)};
  if (t.isContiguous()) return o;
  const Tensor tt = t.transpose();
  if (tt.isContiguous() || (eitherOrder && tt.runs().size() < t.runs().size())) {
    o.storage = tt;
    o.transposed = true;
  }
  return o;
}

namespace {

// A product of few rows (a batch through a layer's weights), split by its
// depth into two halves at a multiple of kHostSplitGrain, whatever the
// number of threads (so the sums, and the bits, do not depend on it): each
// host thread multiplies the rows of B that it wrote in the weight update
// before (that update, and the weight gradient's product, split their rows
// at the same boundary, part i on thread i), and
// the second half's product is added to the first's. Split by output
// columns instead, each core read half of every row of B from the other
// core's cache: the MLP's first layer (32x784x256) took 121 us a training
// step against 77 us for the same product of never-written weights.
// Constant weights (inference) split so too, as the CPU kernels split
// them: on the Xeon VM of 2026-11-29 infer_mlp's IPU contestant gained in
// each of eight alternated pairs (median +6%) against the split by columns;
// on the AMD VM of the day before the two were within the noise.
bool SplitByDepth(ExecutionContext& ctx, const FloatOperand& a, const FloatOperand& b, size_t m,
                  size_t k, size_t n, const float* av, size_t lda, const float* bv, size_t ldb,
                  float* out, float* secondOut) {
  const size_t half = (k + kHostSplitGrain) / (2 * kHostSplitGrain) * kHostSplitGrain;
  // Not zeroed: the product overwrites it, and zeroing it here would make
  // the other thread fetch every line of it from this core before writing.
  std::unique_ptr<float[]> own;
  float* second = secondOut;
  if (second == nullptr) {
    own.reset(new float[m * n]);
    second = own.get();
  }
  std::atomic<bool> ok{true};
  // The boundary may leave the second rows the more (400 of the first
  // layer's 784), and the helper thread starts last. Weights nothing
  // writes during the run stay in whichever core's cache reads them, so
  // the calling thread (part 0) then takes the larger part: the sum of the
  // two products, the same either way round (a float addition commutes),
  // is ready sooner. Weights the run updates keep the update's split.
  const bool callerTakesSecondRows = k - half > half && !ctx.writtenDuringRun(b.storage);
  auto multiply = [&](unsigned part) {
    const unsigned rows = callerTakesSecondRows ? 1 - part : part;
    const size_t k0 = rows == 0 ? 0 : half, depth = rows == 0 ? half : k - half;
    // Columns [k0, k0 + depth) of op(a), rows [k0, k0 + depth) of op(b).
    const float* ap = av + (a.transposed ? k0 * lda : k0);
    const float* bp = bv + (b.transposed ? k0 : k0 * ldb);
    if (!dnnl_one_thread::Sgemm(a.transposed, b.transposed, m, n, depth, ap, lda, bp, ldb,
                                part == 0 ? out : second, n)) {
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
  if (secondOut == nullptr) {
    for (size_t i = 0; i < m * n; ++i) out[i] += second[i];
  }
  return true;
}

// Runs block(r0, rows, c0, cols) over the whole [m,n] output, split over
// the host threads by rows (or by columns when the output is wider than
// tall) at multiples of kHostSplitGrain; false if any block returned false.
template <typename Block>
bool SplitOverThreads(ExecutionContext& ctx, size_t m, size_t n, const Block& block) {
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
  return ok;
}

}  // namespace

bool SplitsByDepth(size_t m, size_t k, size_t n, bool bTransposed) {
  return !bTransposed && dnnl_one_thread::FasterThanEigen(m, n, k) && m * n * k >= kDnnlSplitMacs &&
         m < kHostSplitGrain && k >= 2 * kHostSplitGrain;
}

bool DnnlProduct(ExecutionContext& ctx, const FloatOperand& a, const FloatOperand& b, size_t m,
                 size_t k, size_t n, float* out, float* depthSecondPart) {
  if (!dnnl_one_thread::FasterThanEigen(m, n, k)) return false;
  // Each operand's storage is row-major: the matrix itself, or its
  // transpose (then read transposed).
  ReadView<float> av(ctx, a.storage), bv(ctx, b.storage);
  const size_t lda = a.transposed ? m : k, ldb = b.transposed ? k : n;
  auto block = [&](size_t r0, size_t rows, size_t c0, size_t cols) {
    return dnnl_one_thread::SgemmBlock(a.transposed, b.transposed, r0, rows, c0, cols, k, av.data(),
                                       lda, bv.data(), ldb, out, n);
  };
  if (SplitsByDepth(m, k, n, b.transposed)) {
    return SplitByDepth(ctx, a, b, m, k, n, av.data(), lda, bv.data(), ldb, out,
                        depthSecondPart);
  }
  if (m * n * k < kDnnlSplitMacs) return block(0, m, 0, n);
  return SplitOverThreads(ctx, m, n, block);
}

absl::StatusOr<bool> DnnlProductAcc(ExecutionContext& ctx, const FloatOperand& a,
                                    const FloatOperand& b, size_t m, size_t k, size_t n,
                                    float scale, float* c) {
  ReadView<float> av(ctx, a.storage), bv(ctx, b.storage);
  const size_t lda = a.transposed ? m : k, ldb = b.transposed ? k : n;
  auto block = [&](size_t r0, size_t rows, size_t c0, size_t cols) {
    return dnnl_one_thread::SgemmBlockScaledAdd(a.transposed, b.transposed, r0, rows, c0, cols, k,
                                                scale, av.data(), lda, bv.data(), ldb, c, n);
  };
  if (m * n * k < kDnnlSplitMacs) return block(0, m, 0, n);
  if (!SplitOverThreads(ctx, m, n, block)) {
    return absl::InternalError(absl::StrCat("oneDNN refused a block of the product [", m, ",", k,
                                            "] x [", k, ",", n, "]"));
  }
  return true;
}

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

}  // namespace matmul_internal
}  // namespace poplin
}  // namespace poplar_sim
