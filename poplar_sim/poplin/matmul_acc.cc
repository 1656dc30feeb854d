// poplin::matMulAcc: c += k * a b, the product added into its accumulator
// in the product's own compute set when the plan keeps the depth on one
// tile (matmul.h).
#include <algorithm>
#include <optional>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/poplin/matmul.h"
#include "poplar_sim/poplin/matmul_internal.h"
#include "poplar_sim/poplin/matmul_plan_cache.h"

namespace poplar_sim {
namespace poplin {

using matmul_internal::AddBlockVertices;
using matmul_internal::AvailableMemoryProportion;
using matmul_internal::CeilDiv;
using matmul_internal::DnnlProduct;
using matmul_internal::DnnlProductAcc;
using matmul_internal::FloatOperand;
using matmul_internal::ForEachReductionSlice;
using matmul_internal::RowMajor;
using matmul_internal::StorageOrderIsFree;
using matmul_internal::WithFloatMatrices;

namespace {

bool SharesVariable(const Tensor& x, const Tensor& y) {
  for (const ElementRun& rx : x.runs()) {
    for (const ElementRun& ry : y.runs()) {
      if (rx.var == ry.var) return true;
    }
  }
  return false;
}

}  // namespace

void matMulAcc(Graph& graph, const Tensor& c, float k, const Tensor& a, const Tensor& b,
               program::Sequence& prog, const std::string& debugName, const OptionFlags& options) {
  auto fail = [&](absl::Status s) { graph.recordError(std::move(s)); };
  if (!c.valid()) return fail(c.status());
  if (!a.valid()) return fail(a.status());
  if (!b.valid()) return fail(b.status());
  const std::string name = debugName.empty() ? "matMulAcc" : debugName;
  if (a.rank() != 2 || b.rank() != 2 || c.rank() != 2 || a.dim(1) != b.dim(0) ||
      c.dim(0) != a.dim(0) || c.dim(1) != b.dim(1) || a.elementType() != FLOAT ||
      b.elementType() != FLOAT || c.elementType() != FLOAT) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "poplin::matMulAcc '", name,
        "': needs float matrices c [m,n] += k * a [m,k] x b "
        "[k,n], got c '",
        c.getDebugName(), "' ", typeName(c.elementType()), c.shapeToString(), ", a '",
        a.getDebugName(), "' ", typeName(a.elementType()), a.shapeToString(), " and b '",
        b.getDebugName(), "' ", typeName(b.elementType()), b.shapeToString())));
  }
  const absl::StatusOr<double> proportion = AvailableMemoryProportion(options, "poplin::matMulAcc");
  if (!proportion.ok()) return fail(proportion.status());
  // Nothing to add: c has no elements, or every element of the product is
  // an empty sum.
  if (c.numElements() == 0 || a.dim(1) == 0) return;
  if (c.containsAliases()) {
    return fail(absl::InvalidArgumentError(
        absl::StrCat("poplin::matMulAcc '", name, "': the accumulator '", c.getDebugName(),
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
      VertexRef v = graph.addVertex(
          acs, "poplin::ReducePartialsAcc<float>",
          {{"partials", product.flatten().slice(e0, e1)}, {"acc", c.flatten().slice(e0, e1)}});
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
  const size_t m = a.dim(0), depth = a.dim(1), n = b.dim(1);
  auto plan = MatMulPlanCache::global().plan(graph.getTarget(), graph.getTarget().getNumTiles(),
                                             FLOAT, m, depth, n, *proportion);
  if (!plan.ok()) return fail(plan.status());
  const MatMulPlan p = *plan;
  const unsigned sk = p.splitK;
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
  AddBlockVertices(graph, cs, a, b, p, partials, "poplin::MatMulBlock<float,float>", std::nullopt);
  const Tensor product = partials[0];
  graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) {
    WriteView<float> pv(ctx, product);
    if (!DnnlProduct(ctx, fa, fb, m, depth, n, pv.data())) {
      WithFloatMatrices(ctx, fa, fb, [&](const auto& am, const auto& bm) {
        Eigen::Map<RowMajor>(pv.data(), m, n).noalias() = am * bm;
      });
    }
    return absl::OkStatus();
  });
  prog.add(program::Execute(cs));
  ComputeSet rcs = graph.addComputeSet(name + "/reduce");
  ForEachReductionSlice(p, m, n, [&](size_t q0, size_t q1, size_t c0, size_t c1, unsigned tile) {
    VertexRef v =
        graph.addVertex(rcs, "poplin::ReducePartialsAcc<float>",
                        {{"partials", partials.slice({0, q0, c0}, {sk, q1, c1}).flatten()},
                         {"acc", c.slice({q0, c0}, {q1, c1}).flatten()}});
    graph.setInitialValue(v["scale"], k);
    graph.setTileMapping(v, tile);
  });
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
