// Lowerings of constants and array ops. Reshape, ExpandDims, Squeeze,
// Transpose, Slice, ConcatV2 and Pack are views: they cost no compute set
// and no memory, as on the IPU.
#include <algorithm>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/popops/cast_fill.h"
#include "poplar_sim/popops/elementwise.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/core/kernels/strided_slice_op_util.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

absl::Status LowerConst(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(poplar_sim::Tensor t,
                   ctx.AddConstant(ctx.op().constant, ctx.op().name()));
  ctx.SetOutput(0, t);
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Const", LowerConst);

absl::Status LowerIdentity(LoweringContext& ctx) {
  ctx.SetOutput(0, ctx.input(0));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Identity", LowerIdentity);

absl::Status LowerNoOp(LoweringContext&) { return absl::OkStatus(); }
REGISTER_IPU_LOWERING("NoOp", LowerNoOp);

// The output shape is static (checked before lowering), so every reshaping
// op is a row-major view with the output's dimensions.
absl::Status LowerReshapeView(LoweringContext& ctx) {
  ctx.SetOutput(0, ctx.input(0).reshape(ctx.OutputDims(0)));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Reshape", LowerReshapeView);
REGISTER_IPU_LOWERING("ExpandDims", LowerReshapeView);
REGISTER_IPU_LOWERING("Squeeze", LowerReshapeView);

int64_t NormalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

absl::Status LowerTranspose(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(std::vector<int64_t> perm, ctx.ConstantIntList(1));
  std::vector<unsigned> p;
  for (int64_t d : perm) p.push_back(static_cast<unsigned>(d));
  ctx.SetOutput(0, ctx.input(0).dimShuffle(p));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Transpose", LowerTranspose);

absl::Status LowerSlice(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(std::vector<int64_t> begin, ctx.ConstantIntList(1));
  ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.ConstantIntList(2));
  std::vector<size_t> b, e;
  for (size_t d = 0; d < begin.size(); ++d) {
    b.push_back(begin[d]);
    const int64_t n = size[d] < 0 ? ctx.input_shape(0).dim_size(d) - begin[d]
                                  : size[d];
    e.push_back(begin[d] + n);
  }
  ctx.SetOutput(0, ctx.input(0).slice(b, e));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Slice", LowerSlice);

// StridedSlice: per dimension a slice, a reversal for negative strides and
// a subsample; then the output's shape (new and shrunk axes). All views.
absl::Status LowerStridedSlice(LoweringContext& ctx) {
  StridedSliceSpec spec;
  ASSIGN_OR_RETURN(spec.begin, ctx.ConstantIntList(1));
  ASSIGN_OR_RETURN(spec.end, ctx.ConstantIntList(2));
  ASSIGN_OR_RETURN(spec.strides, ctx.ConstantIntList(3));
  spec.num_entries = static_cast<int>(spec.begin->size());
  ASSIGN_OR_RETURN(spec.begin_mask, ctx.GetAttr<int64_t>("begin_mask"));
  ASSIGN_OR_RETURN(spec.end_mask, ctx.GetAttr<int64_t>("end_mask"));
  ASSIGN_OR_RETURN(spec.ellipsis_mask, ctx.GetAttr<int64_t>("ellipsis_mask"));
  ASSIGN_OR_RETURN(spec.new_axis_mask, ctx.GetAttr<int64_t>("new_axis_mask"));
  ASSIGN_OR_RETURN(spec.shrink_axis_mask,
                   ctx.GetAttr<int64_t>("shrink_axis_mask"));
  absl::StatusOr<StridedSliceResult> r =
      ComputeStridedSlice(ctx.input_shape(0), spec);
  if (!r.ok()) return ctx.Error(r.status().message());
  if (ctx.output_shape(0).num_elements() == 0) {
    return ctx.Unimplemented("a strided slice with no elements");
  }
  poplar_sim::Tensor t = ctx.input(0);
  for (unsigned d = 0; d < r->begin.size(); ++d) {
    const int64_t b = r->begin[d], s = r->strides[d];
    const int64_t n = r->processing_shape.dim_size(d);
    const int64_t last = b + (n - 1) * s;
    if (s > 0) {
      t = t.slice(b, last + 1, d);
      if (s > 1) t = t.subSample(static_cast<unsigned>(s), d);
    } else {
      t = t.slice(last, b + 1, d).reverse(d);
      if (s < -1) t = t.subSample(static_cast<unsigned>(-s), d);
    }
  }
  ctx.SetOutput(0, t.reshape(ctx.OutputDims(0)));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("StridedSlice", LowerStridedSlice);

absl::Status LowerConcat(LoweringContext& ctx) {
  const int n = ctx.num_inputs() - 1;
  ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstantIntList(n));
  const int64_t a = NormalizeAxis(axis.at(0), ctx.output_shape(0).dims());
  std::vector<poplar_sim::Tensor> parts;
  for (int i = 0; i < n; ++i) {
    if (ctx.input(i).numElements() > 0) parts.push_back(ctx.input(i));
  }
  if (parts.empty()) return ctx.Unimplemented("concatenating only empty tensors");
  ctx.SetOutput(0, poplar_sim::concat(parts, static_cast<unsigned>(a)));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("ConcatV2", LowerConcat);

absl::Status LowerPack(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(int64_t axis, ctx.GetAttr<int64_t>("axis"));
  const unsigned a =
      static_cast<unsigned>(NormalizeAxis(axis, ctx.output_shape(0).dims()));
  std::vector<poplar_sim::Tensor> parts;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    parts.push_back(ctx.input(i).expand({a}));
  }
  ctx.SetOutput(0, poplar_sim::concat(parts, a));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Pack", LowerPack);

// Fill, ZerosLike and OnesLike are broadcasts of one value: a view of a
// scalar, which costs no memory beyond the scalar.
absl::Status LowerFill(LoweringContext& ctx) {
  ctx.SetOutput(0, poplar_sim::popops::broadcastTo(ctx.input(1),
                                                   ctx.OutputDims(0)));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Fill", LowerFill);

LoweringFn Filled(double value) {
  return [value](LoweringContext& ctx) -> absl::Status {
    Tensor scalar(ctx.output_type(0), TensorShape());
    RETURN_IF_ERROR(SwitchOnType(ctx.output_type(0), [&](auto tag) {
      using T = decltype(tag);
      scalar.data<T>()[0] = static_cast<T>(static_cast<float>(value));
      return absl::OkStatus();
    }));
    ASSIGN_OR_RETURN(poplar_sim::Tensor t,
                     ctx.AddConstant(scalar, ctx.op().name()));
    ctx.SetOutput(0, poplar_sim::popops::broadcastTo(t, ctx.OutputDims(0)));
    return absl::OkStatus();
  };
}
REGISTER_IPU_LOWERING("ZerosLike", Filled(0));
REGISTER_IPU_LOWERING("OnesLike", Filled(1));

// `t` repeated `m` times along `d`, as a view built from O(log m) concats
// (binary doubling), never from a list of m copies.
poplar_sim::Tensor RepeatView(const poplar_sim::Tensor& t, int64_t m, unsigned d) {
  std::vector<poplar_sim::Tensor> parts;
  poplar_sim::Tensor power = t;
  for (int64_t left = m; left > 0; left >>= 1) {
    if (left & 1) parts.push_back(power);
    if (left > 1) power = poplar_sim::concat(power, power, d);
  }
  return parts.size() == 1 ? parts[0] : poplar_sim::concat(parts, d);
}

// A view lists its elements as strided runs; a tiled view can need one run
// per copy of every row. Beyond this many runs the repetition is made in
// IPU memory instead (where it counts against the tiles), so the host
// memory of a view never grows with a multiple.
constexpr uint64_t kMaxTileViewRuns = uint64_t{1} << 16;

// Tile: the input repeated along each dimension: a view while that is small,
// else a new tensor filled by O(log multiple) copies, each doubling the
// filled part. The output's size was checked against the IPU's memory
// before this runs (LoweringRegistry), so every loop here is bounded by it.
absl::Status LowerTile(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(std::vector<int64_t> multiples, ctx.ConstantIntList(1));
  poplar_sim::Tensor t = ctx.input(0);
  if (t.numElements() == 0) {
    return ctx.Unimplemented("tiling an empty tensor");
  }
  for (int64_t m : multiples) {
    if (m == 0) return ctx.Unimplemented("a multiple of 0");
    if (m < 0) return ctx.Error(absl::StrCat("a negative multiple, ", m));
  }
  for (unsigned d = 0; d < multiples.size(); ++d) {
    const uint64_t m = static_cast<uint64_t>(multiples[d]);
    if (m == 1) continue;
    uint64_t outer = 1;
    for (unsigned k = 0; k < d; ++k) outer *= t.dim(k);
    const uint64_t elements = t.numElements() * m;
    const uint64_t runs = std::min<uint64_t>(
        elements, (t.runs().size() + (d == 0 ? 0 : outer)) * m);
    if (runs <= kMaxTileViewRuns) {
      t = RepeatView(t, static_cast<int64_t>(m), d);
      continue;
    }
    std::vector<size_t> dims = t.shape();
    const size_t a = dims[d];
    dims[d] = a * m;
    poplar_sim::Tensor out = ctx.AddMappedVariable(
        t.elementType(), dims, absl::StrCat(ctx.op().name(), "/dim", d));
    ctx.prog().add(poplar_sim::program::Copy(t, out.slice(0, a, d),
                                             ctx.op().name()));
    for (size_t filled = a; filled < a * m;) {
      const size_t n = std::min(filled, a * m - filled);
      ctx.prog().add(poplar_sim::program::Copy(
          out.slice(0, n, d), out.slice(filled, filled + n, d), ctx.op().name()));
      filled += n;
    }
    t = out;
  }
  ctx.SetOutput(0, t);
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Tile", LowerTile);

// OneHot: compare the indices, with a new axis, against 0..depth-1 laid out
// along that axis, then select the on and off values.
absl::Status LowerOneHot(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(int64_t axis, ctx.GetAttr<int64_t>("axis"));
  const int rank = ctx.output_shape(0).dims();
  const unsigned a = static_cast<unsigned>(axis < 0 ? rank - 1 : axis);
  const int64_t depth = ctx.output_shape(0).dim_size(a);
  poplar_sim::Tensor indices = ctx.input(0);
  if (indices.elementType() != poplar_sim::INT) {
    indices = poplar_sim::popops::cast(ctx.graph(), indices, poplar_sim::INT,
                                       ctx.prog(), ctx.op().name() + "/indices");
  }
  std::vector<int32_t> iota(depth);
  for (int64_t k = 0; k < depth; ++k) iota[k] = static_cast<int32_t>(k);
  std::vector<size_t> iota_dims(rank, 1);
  iota_dims[a] = depth;
  Tensor iota_value = Tensor::FromVector(iota, TensorShape({depth}));
  ASSIGN_OR_RETURN(poplar_sim::Tensor positions,
                   ctx.AddConstant(iota_value, ctx.op().name() + "/positions"));
  poplar_sim::Tensor hot = poplar_sim::popops::eq(
      ctx.graph(), indices.expand({a}), positions.reshape(iota_dims),
      ctx.prog(), ctx.op().name() + "/hot");
  ctx.SetOutput(0, poplar_sim::popops::select(ctx.graph(), ctx.input(2),
                                              ctx.input(3), hot, ctx.prog(),
                                              ctx.op().name()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("OneHot", LowerOneHot);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
