#include "tensorflow_ipu/core/kernels/gradient_descent_of_product.h"

#include <cstdint>
#include <memory>

#include "tensorflow_ipu/core/kernels/gemm.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/core/resource_var.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

// A float matrix with its values (not an uninitialised reference).
bool IsFloatMatrix(const Tensor& t) {
  return t.dtype() == DT_FLOAT && t.dims() == 2 && !t.IsUninitializedRef() &&
         (t.NumElements() == 0 || t.raw_data() != nullptr);
}

// Whether [p, p + bytes) and [q, q + other_bytes) share a byte.
bool Overlap(const void* p, int64_t bytes, const void* q, int64_t other_bytes) {
  const auto x = reinterpret_cast<uintptr_t>(p), y = reinterpret_cast<uintptr_t>(q);
  return bytes > 0 && other_bytes > 0 && x < y + uintptr_t(other_bytes) &&
         y < x + uintptr_t(bytes);
}

}  // namespace

absl::StatusOr<bool> ApplyGradientDescentOfProduct(OpKernelContext* ctx, const Tensor& a, bool ta,
                                                   const Tensor& b, bool tb) {
  if (ctx->resources() == nullptr || !IsFloatMatrix(a) || !IsFloatMatrix(b)) return false;
  const Tensor& alpha = ctx->input(1);
  if (alpha.dtype() != DT_FLOAT || alpha.NumElements() != 1 || alpha.raw_data() == nullptr) {
    return false;
  }
  const int64_t m = a.dim_size(ta ? 1 : 0), k = a.dim_size(ta ? 0 : 1);
  const int64_t kb = b.dim_size(tb ? 1 : 0), n = b.dim_size(tb ? 0 : 1);
  if (k != kb) return false;
  absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx->input(0));
  if (!handle.ok()) return false;
  absl::StatusOr<std::shared_ptr<Var>> var = ctx->resources()->LookupOrCreate(**handle);
  if (!var.ok()) return false;
  if ((*var)->dtype() != DT_FLOAT || (*var)->shape() != TensorShape({m, n}) ||
      !(*var)->IsInitialized()) {
    return false;
  }
  const float step = -alpha.data<float>()[0];
  const Eigen::ThreadPoolDevice& device = ctx->eigen_device();
  RETURN_IF_ERROR((*var)->Update([&](Tensor* value) {
    const int64_t bytes = value->NumElements() * int64_t(sizeof(float));
    const bool in_place =
        value->RefCountIsOne() &&
        !Overlap(value->raw_data(), bytes, a.raw_data(), a.NumElements() * int64_t(sizeof(float))) &&
        !Overlap(value->raw_data(), bytes, b.raw_data(), b.NumElements() * int64_t(sizeof(float)));
    // Else a read still holds the old value (or an operand shares its
    // memory): the step goes into a copy.
    Tensor updated = in_place ? *value : value->DeepCopy();
    GemmScaledAdd(device, a.data<float>(), a.dim_size(0), a.dim_size(1), ta, b.data<float>(),
                  b.dim_size(0), b.dim_size(1), tb, step, updated.data<float>());
    *value = std::move(updated);
    return absl::OkStatus();
  }));
  return true;
}

}  // namespace tensorflow_ipu
