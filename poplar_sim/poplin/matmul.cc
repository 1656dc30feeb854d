#include "poplar_sim/poplin/matmul.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/poplin/matmul_internal.h"
#include "poplar_sim/poplin/matmul_plan_cache.h"
#include "poplar_sim/poputil/tile_mapping.h"

namespace poplar_sim {
namespace poplin {

using matmul_internal::AddBlockVertices;
using matmul_internal::AvailableMemoryProportion;
using matmul_internal::BlockWorkerCycles;
using matmul_internal::CeilDiv;
using matmul_internal::DnnlProduct;
using matmul_internal::FloatOperand;
using matmul_internal::ForEachReductionSlice;
using matmul_internal::HalfAsFloat;
using matmul_internal::kHostSplitGrain;
using matmul_internal::kHostSplitMacs;
using matmul_internal::ReduceWorkerCycles;
using matmul_internal::RowMajor;
using matmul_internal::SplitsByDepth;
using matmul_internal::StorageOrderIsFree;
using matmul_internal::WithFloatMatrices;
using matmul_internal::WriteFloats;

namespace {

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

// The product of an empty matrix: [m,n] zeros when the depth k is 0 (every
// element is an empty sum, as TensorFlow's MatMul gives), with nothing to
// plan; no elements at all when m or n is 0.
Tensor EmptyProduct(Graph& graph, Type type, size_t m, size_t n, program::Sequence& prog,
                    const std::string& name) {
  Tensor c = graph.addVariable(type, {m, n}, name);
  if (m == 0 || n == 0) return c;
  poputil::mapTensorLinearly(graph, c);
  Tensor zero = graph.addConstant(type, {1, 1}, 0.0, name + "/zero");
  graph.setTileMapping(zero, 0);
  prog.add(program::Copy(zero.broadcast(m, 0).broadcast(n, 1), c));
  return c;
}

}  // namespace

namespace matmul_internal {

absl::StatusOr<double> AvailableMemoryProportion(const OptionFlags& options,
                                                 const std::string& op) {
  double proportion = 0.6;
  if (const std::string* p = options.get("availableMemoryProportion")) {
    if (!absl::SimpleAtod(*p, &proportion) || proportion <= 0 || proportion > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, " option availableMemoryProportion must be in (0, 1], not \"", *p, "\""));
    }
  }
  return proportion;
}

void ForEachReductionSlice(const MatMulPlan& p, size_t m, size_t n,
                           const std::function<void(size_t q0, size_t q1, size_t c0, size_t c1,
                                                    unsigned tile)>& f) {
  const unsigned sm = p.splitM, sn = p.splitN, sk = p.splitK;
  for (unsigned i = 0; i < sm; ++i) {
    const size_t r0 = i * p.blockM, r1 = std::min(m, r0 + p.blockM);
    const size_t chunk = CeilDiv(r1 - r0, sk);
    for (unsigned j = 0; j < sn; ++j) {
      const size_t c0 = j * p.blockN, c1 = std::min(n, c0 + p.blockN);
      for (unsigned s = 0; s < sk; ++s) {
        const size_t q0 = std::min(r1, r0 + s * chunk), q1 = std::min(r1, q0 + chunk);
        if (q1 > q0) f(q0, q1, c0, c1, (i * sn + j) * sk + s);
      }
    }
  }
}

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

}  // namespace matmul_internal

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
  const absl::StatusOr<double> proportion =
      AvailableMemoryProportion(options, "poplin::matMul");
  if (!proportion.ok()) return fail(proportion.status());
  const Type type = a.elementType();
  const size_t m = a.dim(0), k = a.dim(1), n = b.dim(1);
  if (m == 0 || n == 0 || k == 0) return EmptyProduct(graph, type, m, n, prog, name);
  // Cached: a deep stack of equal layers plans its one shape once.
  auto plan = MatMulPlanCache::global().plan(graph.getTarget(), graph.getTarget().getNumTiles(),
                                             type, m, k, n, *proportion);
  if (!plan.ok()) return fail(plan.status());
  const MatMulPlan p = *plan;
  const unsigned sk = p.splitK;
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
  // A float product that the host computes as two products over the halves
  // of its depth (SplitsByDepth), planned with partial planes, leaves the
  // second half's product in the second plane and the reduction adds the
  // two: no temporary, and no copy of the first plane into the output. The
  // bits are those of the sum made in DnnlProduct (one addition).
  // (B's storage order is looked at last, for the few shapes that
  // qualify.)
  const bool twoPlanes =
      sk > 1 && type == FLOAT && !hostProduct &&
      SplitsByDepth(m, k, n, /*bTransposed=*/false) &&
      !FloatOperand::Of(b, StorageOrderIsFree(m, k, n)).transposed;
  const Tensor secondPlane = twoPlanes ? partials[1] : Tensor();
  if (type == FLOAT || sk > 1) {
    const bool eitherOrder = StorageOrderIsFree(m, k, n);
    const bool halfOperands = type != FLOAT;
    const FloatOperand fa = FloatOperand::Of(a, eitherOrder),
                       fb = FloatOperand::Of(b, eitherOrder);
    graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) {
      WriteView<float> cv(ctx, product);
      Eigen::Map<RowMajor> cm(cv.data(), m, n);
      if (twoPlanes) {
        WriteView<float> second(ctx, secondPlane);
        if (DnnlProduct(ctx, fa, fb, m, k, n, cv.data(), second.data())) {
          return absl::OkStatus();
        }
        // oneDNN refused: the whole product goes into the first plane (by
        // Eigen, below), and adding -0 to it in the reduction keeps every
        // value, -0 included.
        std::fill(second.data(), second.data() + m * n, -0.f);
      }
      if (hostProduct && !halfOperands && hostProduct(ctx, cv.data())) return absl::OkStatus();
      if (halfOperands) {
        cm = HalfAsFloat(ctx, a, m, k) * HalfAsFloat(ctx, b, k, n);
        return absl::OkStatus();
      }
      if (!twoPlanes && DnnlProduct(ctx, fa, fb, m, k, n, cv.data())) return absl::OkStatus();
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

  // Sum the partials.
  ComputeSet rcs = graph.addComputeSet(name + "/reduce");
  ForEachReductionSlice(p, m, n, [&](size_t q0, size_t q1, size_t c0, size_t c1, unsigned tile) {
    Tensor outRows = c.slice({q0, c0}, {q1, c1});
    graph.setTileMapping(outRows, tile);
    VertexRef v = graph.addVertex(rcs, absl::StrCat("poplin::ReducePartials<", tn, ">"),
                                  {{"partials", partials.slice({0, q0, c0}, {sk, q1, c1}).flatten()},
                                   {"out", outRows.flatten()}});
    graph.setTileMapping(v, tile);
  });
  if (type == FLOAT) {
    // Element by element, so that the engine may run it part by part with
    // the bias and activation that follow (execution_context.h).
    ElementwiseExecutor e;
    e.out = c;
    e.reads = {product};
    if (twoPlanes) e.reads.push_back(secondPlane);
    e.run = [=](ExecutionContext& ctx, size_t begin, size_t end) {
      const float* p = static_cast<const float*>(ctx.contiguousData(product));
      float* out = static_cast<float*>(ctx.contiguousData(c));
      if (!twoPlanes) {
        std::copy(p + begin, p + end, out + begin);
        return;
      }
      const float* second = static_cast<const float*>(ctx.contiguousData(secondPlane));
      for (size_t i = begin; i < end; ++i) out[i] = p[i] + second[i];
    };
    graph.setElementwiseExecutor(rcs, std::move(e));
  } else {
    graph.setBulkExecutor(rcs, [=](ExecutionContext& ctx) {
      ReadView<float> p(ctx, product);
      WriteFloats(ctx, c, p.data(), m * n);
      return absl::OkStatus();
    });
  }
  prog.add(program::Execute(rcs));
  return c;
}

}  // namespace poplin
}  // namespace poplar_sim
