// Fill, ZerosLike and OnesLike: new tensors of one repeated value.
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/parallel_shards.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/shape_ops_util.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

// Sets every element of `out` to `value`, on the Eigen device when large.
template <typename T>
void FillWith(OpKernelContext* ctx, Tensor* out, T value) {
  constexpr int64_t kInlineElements = 1 << 14;
  if (out->NumElements() < kInlineElements) {
    T* p = out->data<T>();
    for (int64_t i = 0; i < out->NumElements(); ++i) p[i] = value;
  } else {
    EvaluateOnPool(ctx->eigen_device(), out->flat<T>(), out->flat<T>().constant(value));
  }
}

class FillOp : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    if (value.dims() != 0) {
      return ctx->InvalidArgument(absl::StrCat(
          "value must be a scalar, but has shape ", value.shape().DebugString()));
    }
    if (ctx->input(0).dims() != 1) {
      return ctx->InvalidArgument(absl::StrCat(
          "dims must be a vector, but has shape ",
          ctx->input(0).shape().DebugString()));
    }
    absl::StatusOr<std::vector<int64_t>> dims =
        shape_util::IndexVector(ctx->input(0), "dims");
    if (!dims.ok()) return ctx->InvalidArgument(dims.status().message());
    for (size_t i = 0; i < dims->size(); ++i) {
      if ((*dims)[i] < 0) {
        return ctx->InvalidArgument(absl::StrCat(
            "Fill dimensions must be >= 0, but dims[", i, "] is ", (*dims)[i]));
      }
    }
    absl::StatusOr<TensorShape> shape = TensorShape::FromDims(*dims);
    if (!shape.ok()) return ctx->InvalidArgument(shape.status().message());
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, *shape));
    return SwitchOnType(out->dtype(), [&](auto tag) {
      using T = decltype(tag);
      FillWith<T>(ctx, out, value.data<T>()[0]);
      return absl::OkStatus();
    });
  }
};

// ZerosLike (kOne = false) and OnesLike (kOne = true).
template <bool kOne>
class ConstantLikeOp : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(Tensor * out,
                     ctx->allocate_output(0, ctx->input(0).shape()));
    return SwitchOnType(out->dtype(), [&](auto tag) {
      using T = decltype(tag);
      FillWith<T>(ctx, out, kOne ? T(1) : T(0));
      return absl::OkStatus();
    });
  }
};

REGISTER_KERNEL("Fill", kDeviceTypeCpu, FillOp);
REGISTER_KERNEL("ZerosLike", kDeviceTypeCpu, ConstantLikeOp<false>);
REGISTER_KERNEL("OnesLike", kDeviceTypeCpu, ConstantLikeOp<true>);

}  // namespace
}  // namespace tensorflow_ipu
