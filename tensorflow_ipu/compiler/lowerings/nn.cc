// Lowerings of softmax, log-softmax and the softmax cross-entropy losses,
// through popnn's row operations, and of IpuGelu through popops maps.
#include "Eigen/Core"
#include "poplar_sim/popnn/nonlinearity.h"
#include "poplar_sim/popops/cast_fill.h"
#include "poplar_sim/popops/elementwise.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

absl::Status LowerSoftmax(LoweringContext& ctx) {
  ctx.SetOutput(0, poplar_sim::popnn::softmax(ctx.graph(), ctx.input(0),
                                              ctx.prog(), ctx.op().name()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Softmax", LowerSoftmax);

absl::Status LowerLogSoftmax(LoweringContext& ctx) {
  ctx.SetOutput(0, poplar_sim::popnn::logSoftmax(ctx.graph(), ctx.input(0),
                                                 ctx.prog(), ctx.op().name()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("LogSoftmax", LowerLogSoftmax);

// IpuGelu: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the tanh
// approximation the vendor's popnn GELU computes, as element-wise maps in
// the input's type (float or half), so it costs what those maps cost.
absl::Status LowerIpuGelu(LoweringContext& ctx) {
  using poplar_sim::popops::BinaryOpType;
  using poplar_sim::popops::UnaryOpType;
  using poplar_sim::popops::map;
  const poplar_sim::Tensor& x = ctx.input(0);
  const DataType dtype = ctx.op().output_types[0];
  const std::string name = ctx.op().name();
  auto scalar = [&](float v, const std::string& what) -> absl::StatusOr<poplar_sim::Tensor> {
    Tensor t = dtype == DT_HALF ? Tensor::Scalar<half>(half(v)) : Tensor::Scalar<float>(v);
    return ctx.AddConstant(t, name + "/" + what);
  };
  ASSIGN_OR_RETURN(poplar_sim::Tensor cubic, scalar(0.044715f, "cubic"));
  ASSIGN_OR_RETURN(poplar_sim::Tensor scale, scalar(0.7978845608028654f, "sqrt_2_over_pi"));
  ASSIGN_OR_RETURN(poplar_sim::Tensor one, scalar(1.0f, "one"));
  ASSIGN_OR_RETURN(poplar_sim::Tensor half_one, scalar(0.5f, "half"));
  auto& g = ctx.graph();
  auto& prog = ctx.prog();
  poplar_sim::Tensor x3 = map(g, BinaryOpType::MULTIPLY, map(g, UnaryOpType::SQUARE, x, prog, name + "/x2"),
                              x, prog, name + "/x3");
  poplar_sim::Tensor inner = map(g, BinaryOpType::ADD, x,
                                 map(g, BinaryOpType::MULTIPLY, x3, cubic, prog, name + "/kx3"),
                                 prog, name + "/inner");
  poplar_sim::Tensor t = map(g, UnaryOpType::TANH,
                             map(g, BinaryOpType::MULTIPLY, inner, scale, prog, name + "/scaled"),
                             prog, name + "/tanh");
  poplar_sim::Tensor gate = map(g, BinaryOpType::ADD, t, one, prog, name + "/gate");
  ctx.SetOutput(0, map(g, BinaryOpType::MULTIPLY,
                       map(g, BinaryOpType::MULTIPLY, x, half_one, prog, name + "/half_x"), gate,
                       prog, name));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("IpuGelu", LowerIpuGelu);

absl::Status LowerSparseXent(LoweringContext& ctx) {
  poplar_sim::Tensor labels = ctx.input(1);
  if (labels.elementType() != poplar_sim::INT) {
    labels = poplar_sim::popops::cast(ctx.graph(), labels, poplar_sim::INT,
                                      ctx.prog(), ctx.op().name() + "/labels");
  }
  poplar_sim::popnn::CrossEntropy xent =
      poplar_sim::popnn::sparseSoftmaxCrossEntropy(
          ctx.graph(), ctx.input(0), labels, ctx.prog(), ctx.op().name());
  ctx.SetOutput(0, xent.loss);
  ctx.SetOutput(1, xent.gradient);
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("SparseSoftmaxCrossEntropyWithLogits", LowerSparseXent);

absl::Status LowerXent(LoweringContext& ctx) {
  poplar_sim::popnn::CrossEntropy xent = poplar_sim::popnn::softmaxCrossEntropy(
      ctx.graph(), ctx.input(0), ctx.input(1), ctx.prog(), ctx.op().name());
  ctx.SetOutput(0, xent.loss);
  ctx.SetOutput(1, xent.gradient);
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("SoftmaxCrossEntropyWithLogits", LowerXent);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
