// Shared machinery of the elementwise kernels: numpy broadcasting plans,
// Eigen evaluation that stays on the calling thread for small tensors, and
// kernel templates that pick the instantiation for the node's dtype once.
//
//   struct AddFn {
//     template <typename A, typename B>
//     static auto Apply(const A& a, const B& b) { return a + b; }
//   };
//   REGISTER_KERNEL("Add", kDeviceTypeCpu,
//                   cwise::BinaryKernel<AddFn, float, half, int32_t>);
//
// A binary kernel computes `z = Fn::Apply(x, y)` on Eigen expressions: same
// shapes and one-element operands (the common cases) are single flat
// expressions; other broadcasts collapse the shapes and run row by row.
#ifndef TENSORFLOW_IPU_CORE_KERNELS_CWISE_OPS_UTIL_H_
#define TENSORFLOW_IPU_CORE_KERNELS_CWISE_OPS_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/parallel_shards.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/tensor.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {
namespace cwise {

// Rank-1 views that may start anywhere in a buffer (rows of a broadcast).
template <typename T>
using Vec = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::DenseIndex>,
                             Eigen::Unaligned>;

template <typename T>
Vec<T> FlatVec(const Tensor& t) {
  return Vec<T>(t.data<T>(), t.NumElements());
}

// Below this many elements an expression is evaluated on the calling thread:
// handing it to the thread pool costs more than the work.
inline constexpr int64_t kParallelThreshold = 256 * 1024;

// dst = expr (rank 1), split into contiguous pieces over the calling thread
// and the session's pool when the tensor is large.
template <typename Dst, typename Expr>
void Assign(OpKernelContext* ctx, Dst dst, const Expr& expr) {
  const Eigen::ThreadPoolDevice& device = ctx->eigen_device();
  const int64_t size = dst.size();
  const int shards = static_cast<int>(
      std::min<int64_t>(device.numThreads(), size / (kParallelThreshold / 2)));
  if (size < kParallelThreshold || shards < 2) {
    dst = expr;
    return;
  }
  // Pieces start at multiples of 16 elements, so that each keeps the vector
  // alignment the whole has.
  RunRanges(device, size, 16, shards, [&](int64_t begin, int64_t end) {
    const Eigen::array<Eigen::DenseIndex, 1> offset = {begin};
    const Eigen::array<Eigen::DenseIndex, 1> extent = {end - begin};
    dst.slice(offset, extent) = expr.slice(offset, extent);
  });
}

// How N shapes broadcast against each other, with adjacent dimensions of the
// same broadcasting pattern merged and dimensions of size 1 dropped.
//   [2,3,4] and [3,4]  ->  dims {2, 12}, in_dims {{2, 12}, {1, 12}}
struct BroadcastPlan {
  TensorShape out_shape;                      // the full broadcast shape
  std::vector<int64_t> dims;                  // collapsed output dims
  std::vector<std::vector<int64_t>> in_dims;  // per input: dims[j] or 1
  // Per input: row-major strides over `dims`, 0 where the input broadcasts.
  std::vector<std::vector<int64_t>> strides;
};

// InvalidArgument "Incompatible shapes: [2,3] vs. [4]" when the shapes do
// not broadcast (all shapes must be fully defined).
absl::StatusOr<BroadcastPlan> MakeBroadcastPlan(
    const std::vector<TensorShape>& shapes);

// The offset in input `k` of element `index` of the collapsed output.
int64_t InputOffset(const BroadcastPlan& plan, int k, int64_t index);

// Calls fn(begin, end) over [0, n), split over the thread pool when
// `n * cost_per_item` elements of work make that worthwhile.
void ParallelFor(OpKernelContext* ctx, int64_t n, int64_t cost_per_item,
                 const std::function<void(int64_t, int64_t)>& fn);

// Binary elementwise op with broadcasting; `Fn::Apply(a, b)` builds the
// Eigen expression (any Scalar type out: T, or bool for comparisons).
template <typename Fn, typename T>
absl::Status ComputeBinary(OpKernelContext* ctx) {
  using Expr = decltype(Fn::Apply(std::declval<Vec<T>>(), std::declval<Vec<T>>()));
  using Out = std::remove_const_t<typename Eigen::internal::traits<Expr>::Scalar>;
  const Tensor& x = ctx->input(0);
  const Tensor& y = ctx->input(1);
  if (x.shape() == y.shape()) {
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, x.shape()));
    Vec<T> xv = FlatVec<T>(x), yv = FlatVec<T>(y);
    Assign(ctx, FlatVec<Out>(*out), Fn::Apply(xv, yv));
    return absl::OkStatus();
  }
  absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan({x.shape(), y.shape()});
  if (!plan.ok()) return ctx->InvalidArgument(plan.status().message());
  ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, plan->out_shape));
  if (out->NumElements() == 0) return absl::OkStatus();
  // A one-element operand: the other one's elements keep their order.
  if (y.NumElements() == 1) {
    Vec<T> xv = FlatVec<T>(x);
    Assign(ctx, FlatVec<Out>(*out), Fn::Apply(xv, xv.constant(y.data<T>()[0])));
    return absl::OkStatus();
  }
  if (x.NumElements() == 1) {
    Vec<T> yv = FlatVec<T>(y);
    Assign(ctx, FlatVec<Out>(*out), Fn::Apply(yv.constant(x.data<T>()[0]), yv));
    return absl::OkStatus();
  }
  // General case: rows of the innermost collapsed dimension, in which at most
  // one operand broadcasts (a dimension where both do was dropped).
  const int n = static_cast<int>(plan->dims.size());
  const int64_t inner = plan->dims[n - 1];
  const int64_t rows = out->NumElements() / inner;
  const bool x_bcast = plan->in_dims[0][n - 1] == 1;
  const bool y_bcast = plan->in_dims[1][n - 1] == 1;
  const T* xd = x.data<T>();
  const T* yd = y.data<T>();
  Out* od = out->data<Out>();
  const BroadcastPlan& p = *plan;
  ParallelFor(ctx, rows, inner, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = xd + InputOffset(p, 0, r * inner);
      const T* yr = yd + InputOffset(p, 1, r * inner);
      Vec<Out> o(od + r * inner, inner);
      if (x_bcast) {
        Vec<T> yv(const_cast<T*>(yr), inner);
        o = Fn::Apply(yv.constant(*xr), yv);
      } else if (y_bcast) {
        Vec<T> xv(const_cast<T*>(xr), inner);
        o = Fn::Apply(xv, xv.constant(*yr));
      } else {
        Vec<T> xv(const_cast<T*>(xr), inner), yv(const_cast<T*>(yr), inner);
        o = Fn::Apply(xv, yv);
      }
    }
  });
  return absl::OkStatus();
}

// Unary elementwise op: y = Fn::Apply(x).
template <typename Fn, typename T>
absl::Status ComputeUnary(OpKernelContext* ctx) {
  using Expr = decltype(Fn::Apply(std::declval<Vec<T>>()));
  using Out = std::remove_const_t<typename Eigen::internal::traits<Expr>::Scalar>;
  const Tensor& x = ctx->input(0);
  ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, x.shape()));
  Vec<T> xv = FlatVec<T>(x);
  Assign(ctx, FlatVec<Out>(*out), Fn::Apply(xv));
  return absl::OkStatus();
}

// InvalidArgument naming both inputs unless inputs 0 and 1 have the same
// shape (the gradient helpers do not broadcast, as in TensorFlow).
absl::Status CheckSameShapeInputs(OpKernelContext* ctx);

// Gradient helpers z = Fn::Apply(a, b) whose two inputs must have the same
// shape.
template <typename Fn, typename T>
absl::Status ComputeSameShape(OpKernelContext* ctx) {
  RETURN_IF_ERROR(CheckSameShapeInputs(ctx));
  const Tensor& a = ctx->input(0);
  const Tensor& b = ctx->input(1);
  ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, a.shape()));
  Vec<T> av = FlatVec<T>(a), bv = FlatVec<T>(b);
  Assign(ctx, FlatVec<T>(*out), Fn::Apply(av, bv));
  return absl::OkStatus();
}

using ComputeFn = absl::Status (*)(OpKernelContext*);

// A kernel that, in Init, picks `Impl<T>::Run` for the dtype of input 0 among
// the types Ts it was instantiated for.
template <template <typename> class Impl, typename... Ts>
class TypedKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    const DataType dtype = ctx->node().input_type(0);
    ((dtype == DataTypeToEnum<Ts>::value ? (fn_ = &Impl<Ts>::Run, 0) : 0), ...);
    if (fn_ == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          "no CPU kernel of op '", ctx->node().op(), "' for type ",
          DataTypeString(dtype)));
    }
    numel_hint_ = ctx->node().output_shape(0).num_elements();
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override { return fn_(ctx); }
  // Small static shapes are cheaper inline than scheduled on another thread.
  bool IsExpensive() const override {
    return numel_hint_ < 0 || numel_hint_ >= kParallelThreshold;
  }

 private:
  ComputeFn fn_ = nullptr;
  int64_t numel_hint_ = -1;
};

template <typename Fn>
struct Binary {
  template <typename T>
  struct Of {
    static absl::Status Run(OpKernelContext* ctx) { return ComputeBinary<Fn, T>(ctx); }
  };
};
template <typename Fn>
struct Unary {
  template <typename T>
  struct Of {
    static absl::Status Run(OpKernelContext* ctx) { return ComputeUnary<Fn, T>(ctx); }
  };
};
template <typename Fn>
struct SameShape {
  template <typename T>
  struct Of {
    static absl::Status Run(OpKernelContext* ctx) { return ComputeSameShape<Fn, T>(ctx); }
  };
};

template <typename Fn, typename... Ts>
using BinaryKernel = TypedKernel<Binary<Fn>::template Of, Ts...>;
template <typename Fn, typename... Ts>
using UnaryKernel = TypedKernel<Unary<Fn>::template Of, Ts...>;
template <typename Fn, typename... Ts>
using SameShapeKernel = TypedKernel<SameShape<Fn>::template Of, Ts...>;

}  // namespace cwise
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_CWISE_OPS_UTIL_H_
