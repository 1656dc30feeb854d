// Gradients of the math ops.
#include "tensorflow_ipu/cc/gradients/grad_helpers.h"
#include "tensorflow_ipu/cc/gradients/grad_registry.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

using grad_internal::ReduceBroadcastGradients;
using grad_internal::ReshapeToKeptDims;
using grad_internal::ScalarOf;

Output In(const Operation& op, int i) {
  const TensorRef& r = op.node()->input(i);
  return Output(r.node, r.index);
}
Output Out(const Operation& op, int i = 0) { return Output(op.node(), i); }

// z = x op y with broadcasting: gradients gx, gy before un-broadcasting.
absl::Status Binary(const Scope& s, const Operation& op, Output gx, Output gy,
                    std::vector<Output>* grads) {
  ReduceBroadcastGradients(s, In(op, 0), In(op, 1), &gx, &gy);
  *grads = {gx, gy};
  return s.status();
}

absl::Status AddGrad(const Scope& s, const Operation& op,
                     const std::vector<Output>& g, std::vector<Output>* grads) {
  return Binary(s, op, g[0], g[0], grads);
}

absl::Status SubGrad(const Scope& s, const Operation& op,
                     const std::vector<Output>& g, std::vector<Output>* grads) {
  return Binary(s, op, g[0], ops::Neg(s, g[0]), grads);
}

absl::Status MulGrad(const Scope& s, const Operation& op,
                     const std::vector<Output>& g, std::vector<Output>* grads) {
  return Binary(s, op, ops::Mul(s, g[0], In(op, 1)), ops::Mul(s, In(op, 0), g[0]),
                grads);
}

absl::Status RealDivGrad(const Scope& s, const Operation& op,
                         const std::vector<Output>& g,
                         std::vector<Output>* grads) {
  Output y = In(op, 1);
  // d(x/y)/dy = -x / y^2 = -(x/y) / y.
  Output gy = ops::Mul(s, g[0], ops::Neg(s, ops::RealDiv(s, Out(op), y)));
  return Binary(s, op, ops::RealDiv(s, g[0], y), gy, grads);
}

// Maximum/Minimum: the gradient goes to the operand that was selected
// (x on ties, as TensorFlow does).
absl::Status SelectedOperandGrad(const Scope& s, const Operation& op,
                                 const Output& x_selected,
                                 const std::vector<Output>& g,
                                 std::vector<Output>* grads) {
  Output zeros = ops::ZerosLike(s, g[0]);
  return Binary(s, op, ops::SelectV2(s, x_selected, g[0], zeros),
                ops::SelectV2(s, x_selected, zeros, g[0]), grads);
}

absl::Status MaximumGrad(const Scope& s, const Operation& op,
                         const std::vector<Output>& g,
                         std::vector<Output>* grads) {
  return SelectedOperandGrad(s, op, ops::GreaterEqual(s, In(op, 0), In(op, 1)),
                             g, grads);
}

absl::Status MinimumGrad(const Scope& s, const Operation& op,
                         const std::vector<Output>& g,
                         std::vector<Output>* grads) {
  return SelectedOperandGrad(s, op, ops::LessEqual(s, In(op, 0), In(op, 1)), g,
                             grads);
}

absl::Status NegGrad(const Scope& s, const Operation& op,
                     const std::vector<Output>& g, std::vector<Output>* grads) {
  *grads = {ops::Neg(s, g[0])};
  return s.status();
}

absl::Status SquareGrad(const Scope& s, const Operation& op,
                        const std::vector<Output>& g,
                        std::vector<Output>* grads) {
  Output two = ScalarOf(s, g[0].type(), 2.0);
  *grads = {ops::Mul(s, g[0], ops::Mul(s, two, In(op, 0)))};
  return s.status();
}

absl::Status ExpGrad(const Scope& s, const Operation& op,
                     const std::vector<Output>& g, std::vector<Output>* grads) {
  *grads = {ops::Mul(s, g[0], Out(op))};
  return s.status();
}

absl::Status LogGrad(const Scope& s, const Operation& op,
                     const std::vector<Output>& g, std::vector<Output>* grads) {
  *grads = {ops::RealDiv(s, g[0], In(op, 0))};
  return s.status();
}

// Ops whose gradient kernel takes (y, dy): Sqrt, Rsqrt, Tanh, Sigmoid,
// Reciprocal.
template <typename GradOp>
absl::Status OutputBasedGrad(const Scope& s, const Operation& op,
                             const std::vector<Output>& g,
                             std::vector<Output>* grads) {
  *grads = {GradOp(s, Out(op), g[0])};
  return s.status();
}

// From the Relu's output, as TensorFlow's Python gradient does (the same
// mask: the output is positive exactly where the input is). The input then
// has one reader, so a MatMul -> BiasAdd -> Relu chain stays fusable in
// training (bias_activation_fusion.h) and its pre-activation is not kept.
absl::Status ReluGrad(const Scope& s, const Operation& op,
                      const std::vector<Output>& g, std::vector<Output>* grads) {
  *grads = {ops::ReluGrad(s, g[0], Out(op))};
  return s.status();
}

absl::Status MatMulGrad(const Scope& s, const Operation& op,
                        const std::vector<Output>& g,
                        std::vector<Output>* grads) {
  ASSIGN_OR_RETURN(bool ta, GetNodeAttr<bool>(op.node()->def(), "transpose_a"));
  ASSIGN_OR_RETURN(bool tb, GetNodeAttr<bool>(op.node()->def(), "transpose_b"));
  Output a = In(op, 0), b = In(op, 1), dc = g[0];
  using M = ops::MatMul;
  if (!ta && !tb) {  // c = a b
    *grads = {M(s, dc, b, M::TransposeB(true)), M(s, a, dc, M::TransposeA(true))};
  } else if (ta && !tb) {  // c = a' b
    *grads = {M(s, b, dc, M::TransposeB(true)), M(s, a, dc)};
  } else if (!ta && tb) {  // c = a b'
    *grads = {M(s, dc, b), M(s, dc, a, M::TransposeA(true))};
  } else {  // c = a' b'
    *grads = {M(s, b, dc, M::TransposeA(true).TransposeB(true)),
              M(s, dc, a, M::TransposeA(true).TransposeB(true))};
  }
  return s.status();
}

absl::Status BiasAddGrad(const Scope& s, const Operation& op,
                         const std::vector<Output>& g,
                         std::vector<Output>* grads) {
  ASSIGN_OR_RETURN(std::string format,
                   GetNodeAttr<std::string>(op.node()->def(), "data_format"));
  *grads = {g[0], ops::BiasAddGrad(s, g[0], ops::BiasAddGrad::DataFormat(format))};
  return s.status();
}

// Sum: every input element receives the gradient of its output element.
absl::Status SumGrad(const Scope& s, const Operation& op,
                     const std::vector<Output>& g, std::vector<Output>* grads) {
  ASSIGN_OR_RETURN(Output kept, ReshapeToKeptDims(s, op, g[0]));
  *grads = {ops::Mul(s, kept, ops::OnesLike(s, In(op, 0))), Output()};
  return s.status();
}

absl::Status MeanGrad(const Scope& s, const Operation& op,
                      const std::vector<Output>& g, std::vector<Output>* grads) {
  ASSIGN_OR_RETURN(Output kept, ReshapeToKeptDims(s, op, g[0]));
  Output x = In(op, 0);
  const DataType t = x.type();
  Output scale;
  if (x.shape().IsFullyDefined() && Out(op).shape().IsFullyDefined()) {
    const double n = static_cast<double>(x.shape().num_elements());
    const double m = static_cast<double>(Out(op).shape().num_elements());
    scale = ScalarOf(s, t, n == 0 ? 0.0 : m / n);
  } else {
    scale = ops::RealDiv(s, ops::Cast(s, ops::Size(s, Out(op)), t),
                         ops::Cast(s, ops::Size(s, x), t));
  }
  *grads = {ops::Mul(s, ops::Mul(s, kept, scale), ops::OnesLike(s, x)), Output()};
  return s.status();
}

// Max/Min: the gradient is shared by the elements equal to the extremum.
absl::Status ExtremumGrad(const Scope& s, const Operation& op,
                          const std::vector<Output>& g,
                          std::vector<Output>* grads) {
  ASSIGN_OR_RETURN(Output kept_g, ReshapeToKeptDims(s, op, g[0]));
  ASSIGN_OR_RETURN(Output kept_y, ReshapeToKeptDims(s, op, Out(op)));
  Output x = In(op, 0);
  Output indicators = ops::Cast(s, ops::Equal(s, x, kept_y), x.type());
  Output axes(op.node()->input(1).node, op.node()->input(1).index);
  Output count = ops::Sum(s, indicators, axes, ops::Sum::KeepDims(true));
  *grads = {ops::Mul(s, ops::RealDiv(s, indicators, count), kept_g), Output()};
  return s.status();
}

bool IsFloat(DataType t) { return t == DT_FLOAT || t == DT_HALF || t == DT_DOUBLE; }

absl::Status CastGrad(const Scope& s, const Operation& op,
                      const std::vector<Output>& g, std::vector<Output>* grads) {
  const DataType src = In(op, 0).type();
  if (!IsFloat(src) || !IsFloat(g[0].type())) {
    *grads = {Output()};
  } else {
    *grads = {ops::Cast(s, g[0], src)};
  }
  return s.status();
}

absl::Status SelectGrad(const Scope& s, const Operation& op,
                        const std::vector<Output>& g,
                        std::vector<Output>* grads) {
  Output zeros = ops::ZerosLike(s, g[0]);
  Output c = In(op, 0);
  if (op.node()->op() == "SelectV2") {
    Output gx = ops::SelectV2(s, c, g[0], zeros);
    Output gy = ops::SelectV2(s, c, zeros, g[0]);
    ReduceBroadcastGradients(s, In(op, 1), In(op, 2), &gx, &gy);
    *grads = {Output(), gx, gy};
  } else {
    *grads = {Output(), ops::Select(s, c, g[0], zeros),
              ops::Select(s, c, zeros, g[0])};
  }
  return s.status();
}

REGISTER_GRADIENT_OP("Add", AddGrad);
REGISTER_GRADIENT_OP("AddV2", AddGrad);
REGISTER_GRADIENT_OP("Sub", SubGrad);
REGISTER_GRADIENT_OP("Mul", MulGrad);
REGISTER_GRADIENT_OP("RealDiv", RealDivGrad);
REGISTER_GRADIENT_OP("Maximum", MaximumGrad);
REGISTER_GRADIENT_OP("Minimum", MinimumGrad);
REGISTER_GRADIENT_OP("Neg", NegGrad);
REGISTER_GRADIENT_OP("Square", SquareGrad);
REGISTER_GRADIENT_OP("Exp", ExpGrad);
REGISTER_GRADIENT_OP("Log", LogGrad);
REGISTER_GRADIENT_OP("Sqrt", OutputBasedGrad<ops::SqrtGrad>);
REGISTER_GRADIENT_OP("Rsqrt", OutputBasedGrad<ops::RsqrtGrad>);
REGISTER_GRADIENT_OP("Tanh", OutputBasedGrad<ops::TanhGrad>);
REGISTER_GRADIENT_OP("Sigmoid", OutputBasedGrad<ops::SigmoidGrad>);
REGISTER_GRADIENT_OP("Reciprocal", OutputBasedGrad<ops::ReciprocalGrad>);
REGISTER_GRADIENT_OP("Relu", ReluGrad);
REGISTER_GRADIENT_OP("MatMul", MatMulGrad);
REGISTER_GRADIENT_OP("BiasAdd", BiasAddGrad);
REGISTER_GRADIENT_OP("Sum", SumGrad);
REGISTER_GRADIENT_OP("Mean", MeanGrad);
REGISTER_GRADIENT_OP("Max", ExtremumGrad);
REGISTER_GRADIENT_OP("Min", ExtremumGrad);
REGISTER_GRADIENT_OP("Cast", CastGrad);
REGISTER_GRADIENT_OP("Select", SelectGrad);
REGISTER_GRADIENT_OP("SelectV2", SelectGrad);

// Piecewise-constant or integer-valued ops: no gradient flows through them.
REGISTER_NO_GRADIENT_OP("ArgMax");
REGISTER_NO_GRADIENT_OP("ArgMin");
REGISTER_NO_GRADIENT_OP("Equal");
REGISTER_NO_GRADIENT_OP("NotEqual");
REGISTER_NO_GRADIENT_OP("Less");
REGISTER_NO_GRADIENT_OP("LessEqual");
REGISTER_NO_GRADIENT_OP("Greater");
REGISTER_NO_GRADIENT_OP("GreaterEqual");
REGISTER_NO_GRADIENT_OP("LogicalAnd");
REGISTER_NO_GRADIENT_OP("LogicalOr");
REGISTER_NO_GRADIENT_OP("LogicalNot");
REGISTER_NO_GRADIENT_OP("BroadcastGradientArgs");

}  // namespace
}  // namespace tensorflow_ipu
