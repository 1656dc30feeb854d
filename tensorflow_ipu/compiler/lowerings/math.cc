// Lowerings of MatMul (through poplin's tile-planned matmul), BiasAdd and
// the reductions (popops::reduce over constant axes).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "poplar_sim/popops/elementwise.h"
#include "poplar_sim/popops/reduce.h"
#include "poplar_sim/poplin/matmul.h"
#include "tensorflow_ipu/compiler/emission_state.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

absl::Status LowerMatMul(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(bool ta, ctx.GetAttr<bool>("transpose_a"));
  ASSIGN_OR_RETURN(bool tb, ctx.GetAttr<bool>("transpose_b"));
  poplar_sim::Tensor a = ta ? ctx.input(0).transpose() : ctx.input(0);
  poplar_sim::Tensor b = tb ? ctx.input(1).transpose() : ctx.input(1);
  ctx.SetOutput(0, poplar_sim::poplin::matMul(ctx.graph(), a, b, ctx.prog(),
                                              ctx.op().name(),
                                              ctx.cluster().matmul_options()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("MatMul", LowerMatMul);

absl::Status LowerBiasAdd(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(std::string format, ctx.GetAttr<std::string>("data_format"));
  poplar_sim::Tensor bias = ctx.input(1);
  const unsigned rank = ctx.input(0).rank();
  if (format == "NCHW" && rank > 2) {
    // The channel is dimension 1: give the bias trailing unit dimensions.
    std::vector<size_t> dims(rank - 1, 1);
    dims[0] = bias.dim(0);
    bias = bias.reshape(dims);
  }
  // In place when nothing reads the input afterwards (a layer's product),
  // as the element-wise lowerings do (elementwise.cc).
  const poplar_sim::Tensor value = ctx.input(0);
  if (value.valid() && bias.valid() && value.elementType() == bias.elementType() &&
      ctx.MayOverwriteInput(0)) {
    poplar_sim::popops::addInPlace(ctx.graph(), value, bias, ctx.prog(), ctx.op().name());
    ctx.SetOutput(0, value);
    return absl::OkStatus();
  }
  ctx.SetOutput(0, poplar_sim::popops::add(ctx.graph(), value, bias, ctx.prog(), ctx.op().name()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("BiasAdd", LowerBiasAdd);

// The bias gradient: the sum over every dimension but the channel's.
absl::Status LowerBiasAddGrad(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(std::string format, ctx.GetAttr<std::string>("data_format"));
  const unsigned rank = ctx.input(0).rank();
  const unsigned channel = format == "NCHW" && rank > 2 ? 1 : rank - 1;
  std::vector<size_t> dims;
  for (unsigned d = 0; d < rank; ++d) {
    if (d != channel) dims.push_back(d);
  }
  ctx.SetOutput(0, poplar_sim::popops::reduce(
                       ctx.graph(), ctx.input(0), dims,
                       {poplar_sim::popops::Operation::ADD}, ctx.prog(),
                       ctx.op().name()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("BiasAddGrad", LowerBiasAddGrad);

LoweringFn Reduction(poplar_sim::popops::Operation operation, bool mean) {
  return [operation, mean](LoweringContext& ctx) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstantIntList(1));
    const int64_t rank = ctx.input_shape(0).dims();
    std::vector<size_t> dims;
    for (int64_t a : axes) {
      const int64_t d = a < 0 ? a + rank : a;
      if (d < 0 || d >= rank) {
        return ctx.Error(absl::StrCat("axis ", a, " is out of range for rank ",
                                      rank));
      }
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) dims.push_back(d);
    }
    poplar_sim::Tensor in = ctx.input(0);
    if (dims.empty()) {
      ctx.SetOutput(0, in.reshape(ctx.OutputDims(0)));
      return absl::OkStatus();
    }
    int64_t count = 1;
    for (size_t d : dims) count *= ctx.input_shape(0).dim_size(d);
    poplar_sim::Tensor out;
    if (mean) {
      if (!poplar_sim::isFloatingPoint(in.elementType())) {
        return ctx.Unimplemented("Mean of integers on the IPU; cast to float");
      }
      poplar_sim::popops::ReduceParams params(
          poplar_sim::popops::Operation::ADD,
          count == 0 ? 0.0f : 1.0f / static_cast<float>(count));
      out = poplar_sim::popops::reduce(ctx.graph(), in, dims, params,
                                       ctx.prog(), ctx.op().name());
    } else {
      out = poplar_sim::popops::reduce(ctx.graph(), in, dims, {operation},
                                       ctx.prog(), ctx.op().name());
    }
    // keep_dims: the kept layout is the same in row-major order.
    ctx.SetOutput(0, out.reshape(ctx.OutputDims(0)));
    return absl::OkStatus();
  };
}
REGISTER_IPU_LOWERING("Sum", Reduction(poplar_sim::popops::Operation::ADD, false));
REGISTER_IPU_LOWERING("Mean", Reduction(poplar_sim::popops::Operation::ADD, true));
REGISTER_IPU_LOWERING("Max", Reduction(poplar_sim::popops::Operation::MAX, false));
REGISTER_IPU_LOWERING("Min", Reduction(poplar_sim::popops::Operation::MIN, false));
REGISTER_IPU_LOWERING("Prod", Reduction(poplar_sim::popops::Operation::MUL, false));

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
