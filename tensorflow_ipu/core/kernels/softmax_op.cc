// Softmax and LogSoftmax over the last dimension, numerically stable (each
// row is shifted by its maximum before exponentiating).
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/softmax_op.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

using softmax_internal::ComputeType;
using softmax_internal::ConstRowMap;
using softmax_internal::RowMap;

template <typename T, bool kLog>
void SoftmaxRows(OpKernelContext* ctx, const T* in, int64_t rows,
                 int64_t cols, T* out) {
  using U = ComputeType<T>;
  softmax_internal::ForEachRowRange(
      ctx, rows, cols,
      [&](int64_t first, int64_t last) {
        Eigen::Array<U, Eigen::Dynamic, 1> row(cols);
        for (int64_t r = first; r < last; ++r) {
          ConstRowMap<T> x(in + r * cols, cols);
          RowMap<T> y(out + r * cols, cols);
          row = x.template cast<U>();
          row -= row.maxCoeff();
          if (kLog) {
            const U log_sum = std::log(row.exp().sum());
            y = (row - log_sum).template cast<T>();
          } else {
            row = row.exp();
            y = (row * (U(1) / row.sum())).template cast<T>();
          }
        }
      });
}

template <bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    if (logits.dims() < 1) {
      return ctx->InvalidArgument(absl::StrCat(
          "logits must have at least one dimension (the classes), but has "
          "shape ", logits.shape().DebugString()));
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, logits.shape()));
    const int64_t cols = logits.dim_size(logits.dims() - 1);
    if (logits.NumElements() == 0) return absl::OkStatus();
    const int64_t rows = logits.NumElements() / cols;
    switch (logits.dtype()) {
      case DT_FLOAT:
        SoftmaxRows<float, kLog>(ctx, logits.data<float>(), rows, cols,
                                 out->data<float>());
        break;
      case DT_HALF:
        SoftmaxRows<half, kLog>(ctx, logits.data<half>(), rows, cols,
                                out->data<half>());
        break;
      case DT_DOUBLE:
        SoftmaxRows<double, kLog>(ctx, logits.data<double>(), rows, cols,
                                  out->data<double>());
        break;
      default:
        return ctx->InvalidArgument(absl::StrCat(
            "unsupported dtype ", DataTypeString(logits.dtype())));
    }
    return absl::OkStatus();
  }
};

REGISTER_KERNEL("Softmax", kDeviceTypeCpu, SoftmaxOp<false>);
REGISTER_KERNEL("LogSoftmax", kDeviceTypeCpu, SoftmaxOp<true>);

}  // namespace
}  // namespace tensorflow_ipu
