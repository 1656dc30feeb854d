// Gradients of the nn ops: softmax, the softmax cross-entropies, Conv2D
// and MaxPool.
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflow_ipu/cc/gradients/grad_registry.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

Output In(const Operation& op, int i) {
  const TensorRef& r = op.node()->input(i);
  return Output(r.node, r.index);
}
Output Out(const Operation& op, int i = 0) { return Output(op.node(), i); }

const Tensor kLastAxis = Tensor::Scalar<int32_t>(-1);

// y = softmax(x): dx = (g - sum(g * y, last axis)) * y.
absl::Status SoftmaxGrad(const Scope& s, const Operation& op,
                         const std::vector<Output>& g,
                         std::vector<Output>* grads) {
  Output y = Out(op);
  Output dot = ops::Sum(s, ops::Mul(s, g[0], y), kLastAxis, ops::Sum::KeepDims(true));
  *grads = {ops::Mul(s, ops::Sub(s, g[0], dot), y)};
  return s.status();
}

// y = log_softmax(x): dx = g - sum(g, last axis) * exp(y).
absl::Status LogSoftmaxGrad(const Scope& s, const Operation& op,
                            const std::vector<Output>& g,
                            std::vector<Output>* grads) {
  Output total = ops::Sum(s, g[0], kLastAxis, ops::Sum::KeepDims(true));
  *grads = {ops::Sub(s, g[0], ops::Mul(s, total, ops::Exp(s, Out(op))))};
  return s.status();
}

// The cross-entropy ops return the gradient of the loss with respect to the
// logits as their second output (`backprop`); the gradient scales it by the
// incoming gradient of each example's loss. The gradient of `backprop`
// itself (a second derivative) is not supported, as in TensorFlow.
absl::Status SparseXentGrad(const Scope& s, const Operation& op,
                            const std::vector<Output>& g,
                            std::vector<Output>* grads) {
  Output scaled = ops::Mul(s, ops::ExpandDims(s, g[0], kLastAxis), Out(op, 1));
  *grads = {scaled, Output()};
  return s.status();
}

absl::Status XentGrad(const Scope& s, const Operation& op,
                      const std::vector<Output>& g, std::vector<Output>* grads) {
  Output g_loss = ops::ExpandDims(s, g[0], kLastAxis);
  Output dlogits = ops::Mul(s, g_loss, Out(op, 1));
  // d(loss)/d(labels) = -log_softmax(logits).
  Output dlabels = ops::Mul(s, g_loss, ops::Neg(s, ops::LogSoftmax(s, In(op, 0))));
  *grads = {dlogits, dlabels};
  return s.status();
}

// The shape of `x` as an int32 vector: a constant when it is static, so
// that the gradient ops' shapes are static too (the IPU needs them), and
// a Shape op otherwise.
Output ShapeOf(const Scope& s, const Output& x) {
  const TensorShape& shape = x.shape();
  if (shape.IsFullyDefined()) {
    std::vector<int32_t> dims(shape.dim_sizes().begin(), shape.dim_sizes().end());
    return ops::Const(s, Tensor::FromVector<int32_t>(
                             dims, TensorShape({static_cast<int64_t>(dims.size())})));
  }
  return ops::Shape(s, x);
}

// y = conv2d(x, f): dx = Conv2DBackpropInput(shape(x), f, dy) and
// df = Conv2DBackpropFilter(x, shape(f), dy), with the op's attrs.
absl::Status Conv2DGrad(const Scope& s, const Operation& op, const std::vector<Output>& g,
                        std::vector<Output>* grads) {
  const NodeDef& def = op.node()->def();
  ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                   GetNodeAttr<std::vector<int64_t>>(def, "strides"));
  ASSIGN_OR_RETURN(std::string padding, GetNodeAttr<std::string>(def, "padding"));
  ASSIGN_OR_RETURN(std::string format, GetNodeAttr<std::string>(def, "data_format"));
  ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                   GetNodeAttr<std::vector<int64_t>>(def, "dilations"));
  ASSIGN_OR_RETURN(std::vector<int64_t> explicit_paddings,
                   GetNodeAttr<std::vector<int64_t>>(def, "explicit_paddings"));
  ASSIGN_OR_RETURN(bool cudnn, GetNodeAttr<bool>(def, "use_cudnn_on_gpu"));
  const ops::Conv2D::Attrs attrs = ops::Conv2D::Attrs()
                                       .DataFormat(format)
                                       .Dilations(dilations)
                                       .ExplicitPaddings(explicit_paddings)
                                       .UseCudnnOnGpu(cudnn);
  Output x = In(op, 0), f = In(op, 1);
  *grads = {ops::Conv2DBackpropInput(s, ShapeOf(s, x), f, g[0], strides, padding, attrs),
            ops::Conv2DBackpropFilter(s, x, ShapeOf(s, f), g[0], strides, padding, attrs)};
  return s.status();
}

// y = max_pool(x): each gradient value goes to the first maximum of its
// window (MaxPoolGrad).
absl::Status MaxPoolGradient(const Scope& s, const Operation& op, const std::vector<Output>& g,
                             std::vector<Output>* grads) {
  const NodeDef& def = op.node()->def();
  ASSIGN_OR_RETURN(std::vector<int64_t> ksize, GetNodeAttr<std::vector<int64_t>>(def, "ksize"));
  ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                   GetNodeAttr<std::vector<int64_t>>(def, "strides"));
  ASSIGN_OR_RETURN(std::string padding, GetNodeAttr<std::string>(def, "padding"));
  ASSIGN_OR_RETURN(std::string format, GetNodeAttr<std::string>(def, "data_format"));
  *grads = {ops::MaxPoolGrad(s, In(op, 0), Out(op), g[0], ksize, strides, padding,
                             ops::MaxPoolGrad::DataFormat(format))};
  return s.status();
}

REGISTER_GRADIENT_OP("Softmax", SoftmaxGrad);
REGISTER_GRADIENT_OP("LogSoftmax", LogSoftmaxGrad);
REGISTER_GRADIENT_OP("SparseSoftmaxCrossEntropyWithLogits", SparseXentGrad);
REGISTER_GRADIENT_OP("SoftmaxCrossEntropyWithLogits", XentGrad);
REGISTER_GRADIENT_OP("Conv2D", Conv2DGrad);
REGISTER_GRADIENT_OP("MaxPool", MaxPoolGradient);

}  // namespace
}  // namespace tensorflow_ipu
