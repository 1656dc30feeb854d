#include "tensorflow_ipu/core/kernels/matmul_bias_activation.h"

#include <cstdint>

#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"
#include "tensorflow_ipu/core/kernels/gemm.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

bool IsFloatWithValues(const Tensor& t, int dims) {
  return t.dtype() == DT_FLOAT && t.dims() == dims && !t.IsUninitializedRef() &&
         (t.NumElements() == 0 || t.raw_data() != nullptr);
}

}  // namespace

absl::StatusOr<bool> MatMulBiasActivation(OpKernelContext* ctx, const Tensor& a, bool ta,
                                          const Tensor& b, bool tb, const Tensor& bias, bool relu) {
  if (!IsFloatWithValues(a, 2) || !IsFloatWithValues(b, 2) || !IsFloatWithValues(bias, 1)) {
    return false;
  }
  const int64_t m = a.dim_size(ta ? 1 : 0), k = a.dim_size(ta ? 0 : 1);
  const int64_t kb = b.dim_size(tb ? 1 : 0), n = b.dim_size(tb ? 0 : 1);
  if (k != kb || bias.dim_size(0) != n) return false;
  ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, TensorShape({m, n})));
  if (m == 0 || n == 0) return true;
  float* o = out->data<float>();
  Gemm<float>(ctx->eigen_device(), a.data<float>(), a.dim_size(0), a.dim_size(1), ta,
              b.data<float>(), b.dim_size(0), b.dim_size(1), tb, o);
  // The BiasAdd kernel's arithmetic, row by row, then the Relu kernel's over
  // the whole, in place: the same values as the three kernels.
  using cwise::Vec;
  Vec<float> bv(const_cast<float*>(bias.data<float>()), n);
  cwise::ParallelFor(ctx, m, n, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) Vec<float>(o + r * n, n) = Vec<float>(o + r * n, n) + bv;
  });
  if (relu) {
    Vec<float> all(o, m * n);
    cwise::Assign(ctx, all, all.cwiseMax(0.f));
  }
  return true;
}

}  // namespace tensorflow_ipu
