// CPU kernel of MatMul: product = op(a) * op(b) with op = transpose or not,
// as Eigen matrix products (gemm.h: split over the session's thread pool
// when large). Half matrices are multiplied in float and rounded once.
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"
#include "tensorflow_ipu/core/kernels/gemm.h"

namespace tensorflow_ipu {
namespace {

// From this many multiply-adds the kernel is worth scheduling as its own
// pool task, beside other work of the step (below it the executor runs it
// inline).
constexpr int64_t kExpensiveFlops = 16 * 1024 * 1024;

// out = op(a) op(b) with the kernels' shared product (gemm.h), which splits
// large products over the pool's threads.
template <typename T>
void Product(OpKernelContext* ctx, const Tensor& a, const Tensor& b, bool ta, bool tb,
             Tensor* out) {
  Gemm<T>(ctx->eigen_device(), a.data<T>(), a.dim_size(0), a.dim_size(1), ta,
          b.data<T>(), b.dim_size(0), b.dim_size(1), tb, out->data<T>());
}

class MatMulKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(ta_, ctx->GetAttr<bool>("transpose_a"));
    ASSIGN_OR_RETURN(tb_, ctx->GetAttr<bool>("transpose_b"));
    // Worth another thread when the product is (the shapes are known).
    const Node& node = ctx->node();
    const TensorShape& a = node.input(0).node->output_shape(node.input(0).index);
    const TensorShape& b = node.input(1).node->output_shape(node.input(1).index);
    if (a.IsFullyDefined() && b.IsFullyDefined() && a.dims() == 2 && b.dims() == 2) {
      const int64_t m = a.dim_size(ta_ ? 1 : 0), k = a.dim_size(ta_ ? 0 : 1);
      const int64_t n = b.dim_size(tb_ ? 0 : 1);
      expensive_ = m * n * k >= kExpensiveFlops;
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    for (int i = 0; i < 2; ++i) {
      if (ctx->input(i).dims() != 2) {
        return ctx->InvalidArgument(absl::StrCat(
            "In[", i, "] is not a matrix. Instead it has shape ",
            ctx->input(i).shape().DebugString()));
      }
    }
    const int64_t m = a.dim_size(ta_ ? 1 : 0), k = a.dim_size(ta_ ? 0 : 1);
    const int64_t kb = b.dim_size(tb_ ? 1 : 0), n = b.dim_size(tb_ ? 0 : 1);
    if (k != kb) {
      return ctx->InvalidArgument(absl::StrCat(
          "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
          ", In[1]: ", b.shape().DebugString(), " (transpose_a=", ta_,
          ", transpose_b=", tb_, ")"));
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, TensorShape({m, n})));
    if (m * n == 0) return absl::OkStatus();
    return SwitchOnType(a.dtype(), [&](auto t) -> absl::Status {
      using T = decltype(t);
      if (k == 0) {
        cwise::FlatVec<T>(*out).setZero();
      } else if constexpr (std::is_same_v<T, half>) {
        ASSIGN_OR_RETURN(Tensor af, Tensor::Create(DT_FLOAT, a.shape()));
        ASSIGN_OR_RETURN(Tensor bf, Tensor::Create(DT_FLOAT, b.shape()));
        ASSIGN_OR_RETURN(Tensor of, Tensor::Create(DT_FLOAT, out->shape()));
        cwise::Vec<half> av = cwise::FlatVec<half>(a), bv = cwise::FlatVec<half>(b);
        cwise::Assign(ctx, cwise::FlatVec<float>(af), av.cast<float>());
        cwise::Assign(ctx, cwise::FlatVec<float>(bf), bv.cast<float>());
        Product<float>(ctx, af, bf, ta_, tb_, &of);
        cwise::Vec<float> ov = cwise::FlatVec<float>(of);
        cwise::Assign(ctx, cwise::FlatVec<half>(*out), ov.cast<half>());
      } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                           std::is_same_v<T, int32_t>) {
        Product<T>(ctx, a, b, ta_, tb_, out);
      } else {
        return absl::UnimplementedError(absl::StrCat(
            "no CPU kernel of MatMul for type ", DataTypeString(a.dtype())));
      }
      return absl::OkStatus();
    });
  }

  bool IsExpensive() const override { return expensive_; }

 private:
  bool ta_ = false;
  bool tb_ = false;
  bool expensive_ = true;
};

REGISTER_KERNEL("MatMul", kDeviceTypeCpu, MatMulKernel);

}  // namespace
}  // namespace tensorflow_ipu
