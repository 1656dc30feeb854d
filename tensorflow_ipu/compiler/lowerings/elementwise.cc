// Lowerings of element-wise ops: popops maps with numpy broadcasting, one
// compute set per op, the output mapped like its operand of the same shape.
// An op whose result has its first operand's shape and type writes it over
// that operand when nothing reads the operand afterwards (MayOverwriteInput,
// compiler/input_reuse.h), as the vendor's backend runs element-wise ops in
// place: no new tensor is live (the profile's memory says so) and the host
// works on one buffer instead of two.
#include "absl/status/status.h"
#include "poplar_sim/popops/cast_fill.h"
#include "poplar_sim/popops/elementwise.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

using poplar_sim::popops::BinaryOpType;
using poplar_sim::popops::UnaryOpType;

LoweringFn Unary(UnaryOpType type) {
  return [type](LoweringContext& ctx) {
    const poplar_sim::Tensor a = ctx.input(0);
    if (a.valid() && poplar_sim::popops::supportsUnary(type, a.elementType()) &&
        poplar_sim::popops::unaryOutputType(type, a.elementType()) == a.elementType() &&
        ctx.MayOverwriteInput(0)) {
      poplar_sim::popops::mapInPlace(ctx.graph(), type, a, ctx.prog(), ctx.op().name());
      ctx.SetOutput(0, a);
      return absl::OkStatus();
    }
    ctx.SetOutput(0, poplar_sim::popops::map(ctx.graph(), type, a, ctx.prog(), ctx.op().name()));
    return absl::OkStatus();
  };
}

// op(input(a), input(b)), written over input(a) when it may be (see above).
void LowerBinary(LoweringContext& ctx, BinaryOpType type, int a, int b) {
  const poplar_sim::Tensor x = ctx.input(a), y = ctx.input(b);
  if (x.valid() && y.valid() && x.elementType() == y.elementType() &&
      poplar_sim::popops::supportsBinary(type, x.elementType()) &&
      poplar_sim::popops::binaryOutputType(type, x.elementType()) == x.elementType()) {
    const auto shape = poplar_sim::popops::broadcastShapes(x.shape(), y.shape());
    if (shape.ok() && *shape == x.shape() && ctx.MayOverwriteInput(a)) {
      poplar_sim::popops::mapInPlace(ctx.graph(), type, x, y, ctx.prog(), ctx.op().name());
      ctx.SetOutput(0, x);
      return;
    }
  }
  ctx.SetOutput(0, poplar_sim::popops::map(ctx.graph(), type, x, y, ctx.prog(), ctx.op().name()));
}

LoweringFn Binary(BinaryOpType type) {
  return [type](LoweringContext& ctx) {
    LowerBinary(ctx, type, 0, 1);
    return absl::OkStatus();
  };
}

// TensorFlow's gradient ops take (dy, x) or (y, dy); popops' gradient maps
// take (forward output or input, dy).
LoweringFn Gradient(BinaryOpType type, bool swap) {
  return [type, swap](LoweringContext& ctx) {
    const int a = swap ? 1 : 0;
    LowerBinary(ctx, type, a, 1 - a);
    return absl::OkStatus();
  };
}

REGISTER_IPU_LOWERING("Neg", Unary(UnaryOpType::NEGATE));
REGISTER_IPU_LOWERING("Square", Unary(UnaryOpType::SQUARE));
REGISTER_IPU_LOWERING("Sqrt", Unary(UnaryOpType::SQRT));
REGISTER_IPU_LOWERING("Rsqrt", Unary(UnaryOpType::RSQRT));
REGISTER_IPU_LOWERING("Exp", Unary(UnaryOpType::EXPONENT));
REGISTER_IPU_LOWERING("Log", Unary(UnaryOpType::LOGARITHM));
REGISTER_IPU_LOWERING("Tanh", Unary(UnaryOpType::TANH));
REGISTER_IPU_LOWERING("Sigmoid", Unary(UnaryOpType::SIGMOID));
REGISTER_IPU_LOWERING("Relu", Unary(UnaryOpType::RELU));
REGISTER_IPU_LOWERING("Reciprocal", Unary(UnaryOpType::INVERSE));
REGISTER_IPU_LOWERING("LogicalNot", Unary(UnaryOpType::LOGICAL_NOT));

REGISTER_IPU_LOWERING("Add", Binary(BinaryOpType::ADD));
REGISTER_IPU_LOWERING("AddV2", Binary(BinaryOpType::ADD));
REGISTER_IPU_LOWERING("Sub", Binary(BinaryOpType::SUBTRACT));
REGISTER_IPU_LOWERING("Mul", Binary(BinaryOpType::MULTIPLY));
REGISTER_IPU_LOWERING("RealDiv", Binary(BinaryOpType::DIVIDE));
REGISTER_IPU_LOWERING("Maximum", Binary(BinaryOpType::MAXIMUM));
REGISTER_IPU_LOWERING("Minimum", Binary(BinaryOpType::MINIMUM));
REGISTER_IPU_LOWERING("Equal", Binary(BinaryOpType::EQUAL));
REGISTER_IPU_LOWERING("NotEqual", Binary(BinaryOpType::NOT_EQUAL));
REGISTER_IPU_LOWERING("Less", Binary(BinaryOpType::LESS_THAN));
REGISTER_IPU_LOWERING("LessEqual", Binary(BinaryOpType::LESS_THAN_EQUAL));
REGISTER_IPU_LOWERING("Greater", Binary(BinaryOpType::GREATER_THAN));
REGISTER_IPU_LOWERING("GreaterEqual", Binary(BinaryOpType::GREATER_THAN_EQUAL));
REGISTER_IPU_LOWERING("LogicalAnd", Binary(BinaryOpType::LOGICAL_AND));
REGISTER_IPU_LOWERING("LogicalOr", Binary(BinaryOpType::LOGICAL_OR));

// ReluGrad(gradients, features): features > 0 exactly when relu(features) > 0.
REGISTER_IPU_LOWERING("ReluGrad", Gradient(BinaryOpType::RELU_GRAD, true));
REGISTER_IPU_LOWERING("SigmoidGrad", Gradient(BinaryOpType::SIGMOID_GRAD, false));
REGISTER_IPU_LOWERING("TanhGrad", Gradient(BinaryOpType::TANH_GRAD, false));

absl::Status LowerCast(LoweringContext& ctx) {
  auto dst = ToPoplarType(ctx.output_type(0));
  if (!dst.ok()) return ctx.Error(dst.status().message());
  if (ctx.input(0).elementType() == *dst) {
    ctx.SetOutput(0, ctx.input(0));
  } else {
    ctx.SetOutput(0, poplar_sim::popops::cast(ctx.graph(), ctx.input(0), *dst,
                                              ctx.prog(), ctx.op().name()));
  }
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Cast", LowerCast);

// Select (v1) takes a rank-1 condition for a batch of rows; SelectV2
// broadcasts like numpy.
absl::Status LowerSelect(LoweringContext& ctx) {
  poplar_sim::Tensor cond = ctx.input(0);
  const unsigned rank = ctx.input(1).rank();
  if (ctx.op().op() == "Select" && cond.rank() == 1 && rank > 1) {
    std::vector<size_t> dims(rank, 1);
    dims[0] = cond.dim(0);
    cond = cond.reshape(dims);
  }
  ctx.SetOutput(0, poplar_sim::popops::select(ctx.graph(), ctx.input(1),
                                              ctx.input(2), cond, ctx.prog(),
                                              ctx.op().name()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Select", LowerSelect);
REGISTER_IPU_LOWERING("SelectV2", LowerSelect);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
