// Internal to //poplar_sim/poplin:matmul: what matMul (matmul.cc) and
// matMulAcc (matmul_acc.cc) share. The block vertices' cycle formulas (the
// planner costs plans with them), the block vertices of a plan, and the
// host execution of a float product over the engine's memory (oneDNN when
// it is faster for the shape, else Eigen), with the thresholds and split
// boundaries that keep its bits independent of the number of host threads.
#ifndef POPLAR_SIM_POPLIN_MATMUL_INTERNAL_H_
#define POPLAR_SIM_POPLIN_MATMUL_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/option_flags.h"
#include "poplar_sim/poplin/matmul.h"
#include "poplar_sim/target.h"

namespace poplar_sim {
namespace poplin {
namespace matmul_internal {

inline uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Worker cycles of one block product of `macs` multiply-adds, and of
// reducing `inputs` float values (matmul_vertices.cc).
uint64_t BlockWorkerCycles(const Target& t, Type type, uint64_t macs);
uint64_t ReduceWorkerCycles(const Target& t, uint64_t inputs);

// The option availableMemoryProportion (default 0.6, as poplibs), or
// InvalidArgument naming `op` when it is not in (0, 1].
absl::StatusOr<double> AvailableMemoryProportion(const OptionFlags& options, const std::string& op);

// Calls f(rows [q0, q1), columns [c0, c1), tile) for each slice of the
// output that one tile reduces when plan `p` splits the depth: the rows of
// each output block shared among the splitK tiles that computed its
// partials (empty slices skipped).
void ForEachReductionSlice(const MatMulPlan& p, size_t m, size_t n,
                           const std::function<void(size_t q0, size_t q1, size_t c0, size_t c1,
                                                    unsigned tile)>& f);

// The block vertices of the product a [m,k] x b [k,n] planned as `p`, in
// `cs`: with one block of depth (p.splitK == 1) each writes its block of
// `out` [m,n] (of `vertexType`; with `accumulate`, MatMulAccBlock adding
// scale times its product to the block), else its block of plane s of
// `out` [splitK,m,n], the float partial sums.
void AddBlockVertices(Graph& graph, const ComputeSet& cs, const Tensor& a, const Tensor& b,
                      const MatMulPlan& p, const Tensor& out, const std::string& vertexType,
                      std::optional<float> accumulate);

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

  static FloatOperand Of(const Tensor& t, bool eitherOrder);
};

// Whether an operand's storage order may be chosen freely without changing
// any value of the product [m,k] x [k,n]: Eigen then runs it (and each part
// of it split over host threads, at least kHostSplitGrain rows or columns)
// as a blocked GEMM, which copies both operands into packed panels of one
// layout whatever their storage order. Its other paths do not: a product
// with one row or column is a matrix-vector product, and one with
// m + k + n < 20 (EIGEN_GEMM_TO_COEFFBASED_THRESHOLD) a lazy
// coefficient-wise product, whose summation order follows the storage.
inline bool StorageOrderIsFree(size_t m, size_t k, size_t n) {
  return m >= 2 && n >= 2 && m + k + n >= 20;
}

// Calls f with an Eigen expression of each float operand: a Map over the
// engine's memory, row- or column-major, or over a gathered copy.
template <typename F>
void WithFloatMatrices(ExecutionContext& ctx, const FloatOperand& a, const FloatOperand& b, F&& f) {
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
inline constexpr size_t kHostSplitMacs = size_t{1} << 20;
// Split boundaries are multiples of this. Eigen's product kernels handle
// the output in register blocks counted from the start of the product (at
// most 3 AVX-512 float vectors, 48), and blocks of different widths add up
// their terms in different orders; aligned pieces keep every element on
// the kernel it has in the whole product, so the values are bit-identical
// however many threads run.
inline constexpr size_t kHostSplitGrain = 48;

// From this many multiply-adds oneDNN's products are split over the host
// threads: the benchmark MLP's 32x256x128 layer (1M) then runs on both,
// which pays since every product through a layer's weights gives each
// thread the same rows of them (SplitsByDepth; train_mlp's IPU loop +2%),
// and, for constant weights (inference), since a polling worker takes its
// shard in 0.4 us (infer_mlp's IPU contestant +2%; with the hand-over of
// before, 2% slower). (When an input gradient still split by depth, the
// split 1M products ran in 33-40 us against 19 on one thread.)
inline constexpr size_t kDnnlSplitMacs = size_t{1} << 20;

// The float product [m,k] x [k,n] into `out` (row-major) by oneDNN, when
// that library computes such shapes faster than Eigen
// (third_party/dnnl/one_thread_sgemm.h; the CPU kernels choose the same way).
// From kDnnlSplitMacs it is split over the host threads like Eigen's, each
// block one oneDNN call on one thread; a block's elements have the bits
// they have in the whole product (matmul_test), so the values do not
// depend on the number of threads. False if oneDNN does not take it (the
// caller then uses Eigen).
//
// A product of fewer than kHostSplitGrain rows and a deep sum
// (SplitsByDepth) is computed as two products over the halves of its depth
// (at a multiple of kHostSplitGrain, whatever the number of threads), one
// per host thread, and the second added to the first in `out`; given
// `depthSecondPart` [m,n], the second goes there instead and is not added
// (a product planned with several partial planes: the reduction adds them).
bool DnnlProduct(ExecutionContext& ctx, const FloatOperand& a, const FloatOperand& b, size_t m,
                 size_t k, size_t n, float* out, float* depthSecondPart = nullptr);

// Whether DnnlProduct computes the product [m,k] x [k,n] as two products
// over the halves of its depth: decided by the shape and by whether B's
// storage is its transpose. Not when B is stored transposed (an input gradient, dx = dy
// w^T): the depth then runs along the weights' columns, and the output
// columns are the weights' rows, so the split by output columns keeps each
// thread on the rows that it wrote in the update, as the depth split of a
// forward product does.
bool SplitsByDepth(size_t m, size_t k, size_t n, bool bTransposed);

// c [m,n] (row-major) += scale * a b by oneDNN, split over the host threads
// as DnnlProduct splits a product (blocks at multiples of kHostSplitGrain,
// so the bits do not depend on the number of threads). Unchanged and
// false if oneDNN refuses the whole product; an error if it refuses one
// block of a split product (c then holds some blocks' sums).
absl::StatusOr<bool> DnnlProductAcc(ExecutionContext& ctx, const FloatOperand& a,
                                    const FloatOperand& b, size_t m, size_t k, size_t n,
                                    float scale, float* c);

// A half tensor as a float row-major matrix.
RowMajor HalfAsFloat(ExecutionContext& ctx, const Tensor& t, size_t rows, size_t cols);

// Writes n floats into `out`, float or half.
void WriteFloats(ExecutionContext& ctx, const Tensor& out, const float* v, size_t n);

}  // namespace matmul_internal
}  // namespace poplin
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPLIN_MATMUL_INTERNAL_H_
