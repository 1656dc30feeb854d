#include "tensorflow_ipu/cc/gradients/grad_helpers.h"

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"

namespace tensorflow_ipu {
namespace grad_internal {
namespace {

Tensor ShapeTensor(const TensorShape& shape) {
  std::vector<int64_t> dims(shape.dim_sizes().begin(), shape.dim_sizes().end());
  return Tensor::Vector<int64_t>(dims);
}

// The axes of `g` (of shape `out`) to sum so that it becomes `in`.
std::vector<int64_t> BroadcastAxes(const TensorShape& in,
                                   const TensorShape& out) {
  std::vector<int64_t> axes;
  const int lead = out.dims() - in.dims();
  for (int i = 0; i < out.dims(); ++i) {
    if (i < lead || (in.dim_size(i - lead) == 1 && out.dim_size(i) != 1)) {
      axes.push_back(i);
    }
  }
  return axes;
}

Output ReduceStatic(const Scope& scope, const Output& g, const Output& x) {
  const TensorShape& in = x.shape();
  const TensorShape& out = g.shape();
  if (in == out) return g;
  std::vector<int64_t> axes = BroadcastAxes(in, out);
  Output summed = g;
  if (!axes.empty()) summed = ops::Sum(scope, g, Tensor::Vector<int64_t>(axes));
  return ops::Reshape(scope, summed, ShapeTensor(in));
}

}  // namespace

void ReduceBroadcastGradients(const Scope& scope, const Output& x,
                              const Output& y, Output* gx, Output* gy) {
  const bool static_shapes = x.shape().IsFullyDefined() &&
                             y.shape().IsFullyDefined() &&
                             gx->shape().IsFullyDefined() &&
                             gy->shape().IsFullyDefined();
  if (static_shapes) {
    *gx = ReduceStatic(scope, *gx, x);
    *gy = ReduceStatic(scope, *gy, y);
    return;
  }
  auto sx = ops::Shape(scope, x);
  auto sy = ops::Shape(scope, y);
  ops::BroadcastGradientArgs args(scope, sx, sy);
  *gx = ops::Reshape(scope, ops::Sum(scope, *gx, args.r0), sx);
  *gy = ops::Reshape(scope, ops::Sum(scope, *gy, args.r1), sy);
}

absl::StatusOr<std::vector<int64_t>> ConstantReductionAxes(const Operation& op) {
  const Node* node = op.node();
  const TensorRef& axes_ref = node->input(1);
  const Tensor* axes = axes_ref.node->constant_value();
  const int rank = node->input(0).node->output_shape(node->input(0).index).dims();
  if (axes == nullptr || rank < 0) {
    return absl::UnimplementedError(absl::StrCat(
        "the gradient of '", node->name(), "' (op: ", node->op(),
        ") needs constant reduction axes and an input of known rank"));
  }
  std::vector<int64_t> result;
  for (int64_t i = 0; i < axes->NumElements(); ++i) {
    int64_t a = axes->dtype() == DT_INT32 ? axes->data<int32_t>()[i]
                                          : axes->data<int64_t>()[i];
    result.push_back(a < 0 ? a + rank : a);
  }
  return result;
}

absl::StatusOr<Output> ReshapeToKeptDims(const Scope& scope,
                                         const Operation& op, const Output& g) {
  absl::StatusOr<std::vector<int64_t>> axes = ConstantReductionAxes(op);
  if (!axes.ok()) return axes.status();
  Output x(op.node()->input(0).node, op.node()->input(0).index);
  const TensorShape& in = x.shape();
  if (in.IsFullyDefined()) {
    std::vector<int64_t> kept(in.dim_sizes().begin(), in.dim_sizes().end());
    for (int64_t a : *axes) kept[a] = 1;
    return Output(ops::Reshape(scope, g, Tensor::Vector<int64_t>(kept)));
  }
  // Partial shapes: the kept shape is the shape of the reduction with
  // keep_dims, computed at run time.
  Output axes_out(op.node()->input(1).node, op.node()->input(1).index);
  auto kept = ops::Shape(scope, ops::Sum(scope, x, axes_out, ops::Sum::KeepDims(true)));
  return Output(ops::Reshape(scope, g, kept));
}

// Built in `dtype` directly (not a double constant cast): the IPU has no
// doubles, and gradients are often lowered there.
Output ScalarOf(const Scope& scope, DataType dtype, double value) {
  Tensor t(dtype, TensorShape());
  scope.UpdateStatus(SwitchOnType(dtype, [&](auto v) -> absl::Status {
    using T = decltype(v);
    t.data<T>()[0] = static_cast<T>(value);
    return absl::OkStatus();
  }));
  return ops::Const(scope, t);
}

}  // namespace grad_internal
}  // namespace tensorflow_ipu
