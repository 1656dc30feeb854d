// Softmax cross-entropy losses and their gradients with respect to the
// logits, computed together in one pass per row (stable: rows are shifted by
// their maximum).
//   SparseSoftmaxCrossEntropyWithLogits: loss[b] = logsumexp(x[b]) - x[b, y[b]]
//   SoftmaxCrossEntropyWithLogits: loss[b] = sum_j p[b,j] (logsumexp(x[b]) - x[b,j])
//   backprop = softmax(x) - one_hot(y) (or - p).
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/softmax_op.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

using softmax_internal::ComputeType;
using softmax_internal::ConstRowMap;
using softmax_internal::RowMap;

template <typename T, typename Label>
void SparseXent(OpKernelContext* ctx, const Tensor& features,
                const Label* labels, Tensor* loss, Tensor* backprop) {
  using U = ComputeType<T>;
  const int64_t rows = features.dim_size(0);
  const int64_t cols = features.dim_size(1);
  const T* in = features.data<T>();
  T* loss_out = loss->data<T>();
  T* bp_out = backprop->data<T>();
  softmax_internal::ForEachRowRange(
      ctx, rows, cols,
      [&](int64_t first, int64_t last) {
        Eigen::Array<U, Eigen::Dynamic, 1> row(cols);
        for (int64_t r = first; r < last; ++r) {
          const int64_t label = static_cast<int64_t>(labels[r]);
          row = ConstRowMap<T>(in + r * cols, cols).template cast<U>();
          row -= row.maxCoeff();
          const U x_label = row[label];
          row = row.exp();
          const U sum = row.sum();
          loss_out[r] = static_cast<T>(std::log(sum) - x_label);
          row *= U(1) / sum;
          row[label] -= U(1);
          RowMap<T>(bp_out + r * cols, cols) = row.template cast<T>();
        }
      });
}

template <typename Label>
absl::Status CheckLabels(OpKernelContext* ctx, const Tensor& labels,
                         int64_t num_classes) {
  const Label* l = labels.data<Label>();
  for (int64_t i = 0; i < labels.NumElements(); ++i) {
    const int64_t v = static_cast<int64_t>(l[i]);
    if (v >= 0 && v < num_classes) continue;
    constexpr int64_t kMaxListed = 20;
    std::vector<int64_t> listed;
    for (int64_t k = 0; k < labels.NumElements() && k < kMaxListed; ++k) {
      listed.push_back(static_cast<int64_t>(l[k]));
    }
    return ctx->InvalidArgument(absl::StrCat(
        "Received a label value of ", v,
        " which is outside the valid range of [0, ", num_classes,
        "). Label values: ", absl::StrJoin(listed, " "),
        labels.NumElements() > kMaxListed ? " ..." : ""));
  }
  return absl::OkStatus();
}

class SparseSoftmaxXentOp : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    if (features.dims() != 2) {
      return ctx->InvalidArgument(absl::StrCat(
          "logits must be 2-D [batch_size, num_classes], but has shape ",
          features.shape().DebugString()));
    }
    if (labels.dims() != 1) {
      return ctx->InvalidArgument(absl::StrCat(
          "labels must be 1-D [batch_size], but has shape ",
          labels.shape().DebugString()));
    }
    if (labels.dim_size(0) != features.dim_size(0)) {
      return ctx->InvalidArgument(absl::StrCat(
          "logits and labels must have the same first dimension, got logits "
          "shape ", features.shape().DebugString(), " and labels shape ",
          labels.shape().DebugString()));
    }
    const int64_t classes = features.dim_size(1);
    RETURN_IF_ERROR(labels.dtype() == DT_INT32
                        ? CheckLabels<int32_t>(ctx, labels, classes)
                        : CheckLabels<int64_t>(ctx, labels, classes));
    ASSIGN_OR_RETURN(Tensor * loss,
                     ctx->allocate_output(0, TensorShape({features.dim_size(0)})));
    ASSIGN_OR_RETURN(Tensor * backprop,
                     ctx->allocate_output(1, features.shape()));
    if (features.NumElements() == 0) return absl::OkStatus();
    auto run = [&](auto tag) {
      using T = decltype(tag);
      if (labels.dtype() == DT_INT32) {
        SparseXent<T, int32_t>(ctx, features, labels.data<int32_t>(), loss,
                               backprop);
      } else {
        SparseXent<T, int64_t>(ctx, features, labels.data<int64_t>(), loss,
                               backprop);
      }
      return absl::OkStatus();
    };
    switch (features.dtype()) {
      case DT_FLOAT: return run(float{});
      case DT_HALF: return run(half{});
      case DT_DOUBLE: return run(double{});
      default:
        return ctx->InvalidArgument(absl::StrCat(
            "unsupported dtype ", DataTypeString(features.dtype())));
    }
  }
};

// Row r, column c of a [rows, cols] matrix broadcast to the output shape.
struct Broadcast2D {
  int64_t row_stride;  // 0 when the matrix has one row
  int64_t col_stride;  // 0 when the matrix has one column
  Broadcast2D(const Tensor& t)  // NOLINT
      : row_stride(t.dim_size(0) == 1 ? 0 : t.dim_size(1)),
        col_stride(t.dim_size(1) == 1 ? 0 : 1) {}
};

template <typename T>
void DenseXent(OpKernelContext* ctx, const Tensor& features,
               const Tensor& labels, Tensor* loss, Tensor* backprop) {
  using U = ComputeType<T>;
  const int64_t rows = backprop->dim_size(0);
  const int64_t cols = backprop->dim_size(1);
  const Broadcast2D fb(features), lb(labels);
  const T* f = features.data<T>();
  const T* l = labels.data<T>();
  T* loss_out = loss->data<T>();
  T* bp_out = backprop->data<T>();
  softmax_internal::ForEachRowRange(
      ctx, rows, cols,
      [&](int64_t first, int64_t last) {
        Eigen::Array<U, Eigen::Dynamic, 1> x(cols), p(cols);
        for (int64_t r = first; r < last; ++r) {
          for (int64_t c = 0; c < cols; ++c) {
            x[c] = static_cast<U>(f[r * fb.row_stride + c * fb.col_stride]);
            p[c] = static_cast<U>(l[r * lb.row_stride + c * lb.col_stride]);
          }
          x -= x.maxCoeff();
          const U log_sum = std::log(x.exp().sum());
          loss_out[r] = static_cast<T>((p * (log_sum - x)).sum());
          // Exponentiated in the (aligned) row, not while writing the
          // output: Eigen takes a scalar exp for the elements before an
          // unaligned destination's first whole vector, and its scalar and
          // vector exps differ in the last bit, so the values would depend
          // on where the output happens to start.
          x = (x - log_sum).exp();
          RowMap<T>(bp_out + r * cols, cols) = (x - p).template cast<T>();
        }
      });
}

class SoftmaxXentOp : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    bool ok = features.dims() == 2 && labels.dims() == 2;
    for (int d = 0; ok && d < 2; ++d) {
      const int64_t a = features.dim_size(d), b = labels.dim_size(d);
      ok = a == b || a == 1 || b == 1;
    }
    if (!ok) {
      return ctx->InvalidArgument(absl::StrCat(
          "logits and labels must be 2-D [batch_size, num_classes] and "
          "broadcastable: logits_size=", features.shape().DebugString(),
          " labels_size=", labels.shape().DebugString()));
    }
    TensorShape out_shape;
    for (int d = 0; d < 2; ++d) {
      const int64_t a = features.dim_size(d), b = labels.dim_size(d);
      out_shape.AddDim(a == 1 ? b : a);
    }
    ASSIGN_OR_RETURN(Tensor * loss,
                     ctx->allocate_output(0, TensorShape({out_shape.dim_size(0)})));
    ASSIGN_OR_RETURN(Tensor * backprop, ctx->allocate_output(1, out_shape));
    if (out_shape.num_elements() == 0) {
      // No classes: every loss is an empty sum.
      return SwitchOnType(loss->dtype(), [&](auto tag) {
        using T = decltype(tag);
        for (int64_t i = 0; i < loss->NumElements(); ++i) loss->data<T>()[i] = T(0);
        return absl::OkStatus();
      });
    }
    switch (features.dtype()) {
      case DT_FLOAT: DenseXent<float>(ctx, features, labels, loss, backprop); break;
      case DT_HALF: DenseXent<half>(ctx, features, labels, loss, backprop); break;
      case DT_DOUBLE: DenseXent<double>(ctx, features, labels, loss, backprop); break;
      default:
        return ctx->InvalidArgument(absl::StrCat(
            "unsupported dtype ", DataTypeString(features.dtype())));
    }
    return absl::OkStatus();
  }
};

REGISTER_KERNEL("SparseSoftmaxCrossEntropyWithLogits", kDeviceTypeCpu,
                SparseSoftmaxXentOp);
REGISTER_KERNEL("SoftmaxCrossEntropyWithLogits", kDeviceTypeCpu,
                SoftmaxXentOp);

}  // namespace
}  // namespace tensorflow_ipu
