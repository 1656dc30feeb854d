// Lowerings of the resource variable ops. A variable of a cluster is one
// device tensor that lives as long as the engine (made at its first handle
// op, with host read and write handles: EmissionState::BindVariable), so
// reads and assignments are on-device copies and maps and nothing crosses
// the host link.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "poplar_sim/popops/elementwise.h"
#include "poplar_sim/poplin/matmul.h"
#include "poplar_sim/program.h"
#include "tensorflow_ipu/compiler/emission_state.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/compiler/matmul_accumulation.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

namespace program = poplar_sim::program;

// The handle's value is the variable's device tensor: one per variable,
// however many handle ops name it.
absl::Status LowerVarHandle(LoweringContext& ctx) {
  ResourceBinding b;
  ASSIGN_OR_RETURN(b.name, ctx.GetAttr<std::string>("shared_name"));
  if (b.name.empty()) b.name = ctx.op().name();
  ASSIGN_OR_RETURN(b.dtype, ctx.GetAttr<DataType>("dtype"));
  ASSIGN_OR_RETURN(b.shape, ctx.GetAttr<TensorShape>("shape"));
  ASSIGN_OR_RETURN(poplar_sim::Tensor t,
                   ctx.cluster().BindVariable(ctx.op_index(), std::move(b),
                                              ctx.graph()));
  ctx.SetOutput(0, t);
  return absl::OkStatus();
}

// A read is the variable's own tensor when nothing writes the variable
// while the value is in use (the emitter checks, and else emits the cluster
// again with such reads as snapshots); otherwise a snapshot, so that later
// assignments in the cluster do not change it.
absl::Status LowerRead(LoweringContext& ctx) {
  const int k = ctx.cluster().ResourceOf(ctx.input_op(0));
  if (k >= 0 && ctx.cluster().MayAliasReads(k)) {
    ctx.SetOutput(0, ctx.input(0));
    return absl::OkStatus();
  }
  poplar_sim::Tensor snapshot = ctx.graph().clone(ctx.input(0), ctx.op().name());
  ctx.prog().add(program::Copy(ctx.input(0), snapshot, ctx.op().name()));
  ctx.SetOutput(0, snapshot);
  return absl::OkStatus();
}

absl::Status LowerAssign(LoweringContext& ctx) {
  if (ctx.input(1).shape() != ctx.input(0).shape()) {
    return ctx.Error("the value's shape differs from the variable's");
  }
  ctx.prog().add(program::Copy(ctx.input(1), ctx.input(0), ctx.op().name()));
  return absl::OkStatus();
}

// var += scale op(a) op(b), a and b the op's last two inputs: an
// AssignAddVariableOp or a ResourceApplyGradientDescent of a (scaled)
// product, rewritten by the matmul-accumulation pass.
absl::Status LowerAddOfProduct(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(bool ta, ctx.GetAttr<bool>("transpose_a"));
  ASSIGN_OR_RETURN(bool tb, ctx.GetAttr<bool>("transpose_b"));
  ASSIGN_OR_RETURN(float scale, ctx.GetAttr<float>(kAccumulateScaleAttr));
  const int n = ctx.num_inputs();
  const poplar_sim::Tensor a = ta ? ctx.input(n - 2).transpose() : ctx.input(n - 2);
  const poplar_sim::Tensor b = tb ? ctx.input(n - 1).transpose() : ctx.input(n - 1);
  if (a.rank() != 2 || b.rank() != 2 ||
      ctx.input(0).shape() != std::vector<size_t>{a.dim(0), b.dim(1)}) {
    return ctx.Error("the product's shape differs from the variable's");
  }
  poplar_sim::poplin::matMulAcc(ctx.graph(), ctx.input(0), scale, a, b, ctx.prog(),
                                ctx.op().name(), ctx.cluster().matmul_options());
  return absl::OkStatus();
}

bool AddsAProduct(const LoweringContext& ctx) {
  return ctx.op().def.attr().contains(kAccumulatesMatMulAttr);
}

LoweringFn AssignUpdate(poplar_sim::popops::BinaryOpType type) {
  return [type](LoweringContext& ctx) {
    if (type == poplar_sim::popops::BinaryOpType::ADD && AddsAProduct(ctx)) {
      return LowerAddOfProduct(ctx);
    }
    if (ctx.input(1).shape() != ctx.input(0).shape()) {
      return ctx.Error("the value's shape differs from the variable's");
    }
    poplar_sim::popops::mapInPlace(ctx.graph(), type, ctx.input(0), ctx.input(1),
                                   ctx.prog(), ctx.op().name());
    return absl::OkStatus();
  };
}

// var -= alpha * delta: one scaled add when alpha is a constant (the
// learning rate of GradientDescentOptimizer), else a multiply and subtract.
absl::Status LowerApplyGradientDescent(LoweringContext& ctx) {
  if (AddsAProduct(ctx)) return LowerAddOfProduct(ctx);
  if (ctx.input(2).shape() != ctx.input(0).shape()) {
    return ctx.Error("the delta's shape differs from the variable's");
  }
  if (const Tensor* alpha = ctx.ConstantInput(1);
      alpha != nullptr && alpha->dtype() == DT_FLOAT && alpha->NumElements() == 1) {
    poplar_sim::popops::scaledAddTo(ctx.graph(), ctx.input(0), ctx.input(2),
                                    -alpha->data<float>()[0], ctx.prog(), ctx.op().name());
    return absl::OkStatus();
  }
  poplar_sim::Tensor step = poplar_sim::popops::mul(ctx.graph(), ctx.input(2), ctx.input(1),
                                                     ctx.prog(), ctx.op().name() + "/step");
  poplar_sim::popops::mapInPlace(ctx.graph(), poplar_sim::popops::BinaryOpType::SUBTRACT,
                                 ctx.input(0), step, ctx.prog(), ctx.op().name());
  return absl::OkStatus();
}

REGISTER_IPU_LOWERING("VarHandleOp", LowerVarHandle);
REGISTER_IPU_LOWERING("ReadVariableOp", LowerRead);
REGISTER_IPU_LOWERING("AssignVariableOp", LowerAssign);
REGISTER_IPU_LOWERING("AssignAddVariableOp",
                      AssignUpdate(poplar_sim::popops::BinaryOpType::ADD));
REGISTER_IPU_LOWERING("AssignSubVariableOp",
                      AssignUpdate(poplar_sim::popops::BinaryOpType::SUBTRACT));
REGISTER_IPU_LOWERING("ResourceApplyGradientDescent", LowerApplyGradientDescent);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
