// CPU kernels of the reductions Sum, Mean, Max, Min and Prod over the axes
// given by input 1 (a scalar or vector, negative axes count from the end,
// repeats allowed, no axes = identity).
//
// The input's dimensions are collapsed into alternating kept and reduced
// groups; each reduced group is then summed away as the middle dimension of
// an [outer, reduced, inner] view, the last one straight into the output.
// Sums, means and products of half accumulate in float. The mean of an
// integer tensor is the truncated quotient, as in TensorFlow; the mean of no
// elements is NaN for floats and 0 for integers.
#include <cmath>
#include <limits>
#include <vector>

#include "tensorflow_ipu/core/parallel_shards.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"
#include "tensorflow_ipu/core/kernels/wrapping_arithmetic.h"

namespace tensorflow_ipu {
namespace {

using Eigen::Index;

template <typename T, int N>
using Map = Eigen::TensorMap<Eigen::Tensor<T, N, Eigen::RowMajor, Index>,
                             Eigen::Unaligned>;

// dst = expr, on the thread pool when `work` elements are read.
template <typename Dst, typename Expr>
void Evaluate(OpKernelContext* ctx, Dst dst, const Expr& expr, int64_t work) {
  if (work < cwise::kParallelThreshold) {
    dst = expr;
  } else {
    EvaluateOnPool(ctx->eigen_device(), dst, expr);
  }
}

// out[a, b] = reduce over r of in[a, r, b].
template <typename T, typename Reducer>
void ReduceMiddle(OpKernelContext* ctx, const T* in, T* out, Index a, Index r,
                  Index b) {
  const int64_t work = a * r * b;
  if (a == 1 && b == 1) {
    Map<T, 0> o(out);
    Evaluate(ctx, o, Map<const T, 1>(in, r).reduce(Eigen::array<Index, 1>{0}, Reducer()), work);
  } else if (b == 1) {
    Map<T, 1> o(out, a);
    Evaluate(ctx, o, Map<const T, 2>(in, a, r).reduce(Eigen::array<Index, 1>{1}, Reducer()), work);
  } else if (a == 1) {
    Map<T, 1> o(out, b);
    Evaluate(ctx, o, Map<const T, 2>(in, r, b).reduce(Eigen::array<Index, 1>{0}, Reducer()), work);
  } else {
    Map<T, 2> o(out, a, b);
    Evaluate(ctx, o, Map<const T, 3>(in, a, r, b).reduce(Eigen::array<Index, 1>{1}, Reducer()), work);
  }
}

struct Group {
  int64_t size;
  bool reduced;
};

// Reduces `in` (dims collapsed into `groups`) into `out`, which has room for
// the kept elements. `groups` has at least one reduced group.
template <typename T, typename Reducer>
absl::Status ReduceGroups(OpKernelContext* ctx, const Tensor& in,
                          std::vector<Group> groups, Tensor* out) {
  Tensor cur = in;
  while (true) {
    int g = static_cast<int>(groups.size()) - 1;
    while (!groups[g].reduced) --g;
    int64_t a = 1, b = 1;
    for (int i = 0; i < g; ++i) a *= groups[i].size;
    for (int i = g + 1; i < static_cast<int>(groups.size()); ++i) b *= groups[i].size;
    const int64_t r = groups[g].size;
    groups.erase(groups.begin() + g);
    bool last = true;
    for (const Group& grp : groups) last &= !grp.reduced;
    Tensor next;
    if (last) {
      next = *out;
    } else {
      ASSIGN_OR_RETURN(next, Tensor::Create(in.dtype(), TensorShape({a * b})));
    }
    ReduceMiddle<T, Reducer>(ctx, cur.data<T>(), next.data<T>(), a, r, b);
    if (last) return absl::OkStatus();
    cur = next;
  }
}

enum class Kind { kSum, kMean, kMax, kMin, kProd };

template <typename T>
T InitialValue(Kind kind) {
  switch (kind) {
    case Kind::kSum: return T(0);
    case Kind::kProd: return T(1);
    case Kind::kMean:
      return std::numeric_limits<T>::has_quiet_NaN
                 ? std::numeric_limits<T>::quiet_NaN()
                 : T(0);
    case Kind::kMax:
      return std::numeric_limits<T>::has_infinity
                 ? -std::numeric_limits<T>::infinity()
                 : std::numeric_limits<T>::lowest();
    case Kind::kMin:
      return std::numeric_limits<T>::has_infinity
                 ? std::numeric_limits<T>::infinity()
                 : std::numeric_limits<T>::max();
  }
  return T(0);
}

template <typename T>
absl::Status Reduce(OpKernelContext* ctx, Kind kind, const Tensor& in,
                    const std::vector<Group>& groups, int64_t count,
                    Tensor* out) {
  if (in.NumElements() == 0) {
    cwise::FlatVec<T>(*out).setConstant(InitialValue<T>(kind));
    return absl::OkStatus();
  }
  // Integer sums and products wrap round on overflow (wrapping_arithmetic.h).
  using SumReducer = std::conditional_t<wrapping::kWraps<T>, wrapping::SumReducer<T>,
                                        Eigen::internal::SumReducer<T>>;
  using ProdReducer = std::conditional_t<wrapping::kWraps<T>, wrapping::ProdReducer<T>,
                                         Eigen::internal::ProdReducer<T>>;
  switch (kind) {
    case Kind::kSum:
      return ReduceGroups<T, SumReducer>(ctx, in, groups, out);
    case Kind::kMax:
      return ReduceGroups<T, Eigen::internal::MaxReducer<T>>(ctx, in, groups, out);
    case Kind::kMin:
      return ReduceGroups<T, Eigen::internal::MinReducer<T>>(ctx, in, groups, out);
    case Kind::kProd:
      return ReduceGroups<T, ProdReducer>(ctx, in, groups, out);
    case Kind::kMean: {
      RETURN_IF_ERROR((ReduceGroups<T, SumReducer>(ctx, in, groups, out)));
      cwise::Vec<T> o = cwise::FlatVec<T>(*out);
      o = o / o.constant(static_cast<T>(count));
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status ReduceTyped(OpKernelContext* ctx, Kind kind, const Tensor& in,
                         const std::vector<Group>& groups, int64_t count,
                         Tensor* out) {
  if constexpr (std::is_same_v<T, half>) {
    if (kind == Kind::kSum || kind == Kind::kMean || kind == Kind::kProd) {
      ASSIGN_OR_RETURN(Tensor in_f, Tensor::Create(DT_FLOAT, in.shape()));
      ASSIGN_OR_RETURN(Tensor out_f, Tensor::Create(DT_FLOAT, out->shape()));
      cwise::Vec<half> iv = cwise::FlatVec<half>(in);
      cwise::Assign(ctx, cwise::FlatVec<float>(in_f), iv.cast<float>());
      RETURN_IF_ERROR(Reduce<float>(ctx, kind, in_f, groups, count, &out_f));
      cwise::Vec<float> ov = cwise::FlatVec<float>(out_f);
      cwise::FlatVec<half>(*out) = ov.cast<half>();
      return absl::OkStatus();
    }
  }
  return Reduce<T>(ctx, kind, in, groups, count, out);
}

class ReductionKernel : public OpKernel {
 public:
  explicit ReductionKernel(Kind kind) : kind_(kind) {}

  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(keep_dims_, ctx->GetAttr<bool>("keep_dims"));
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    if (axes.dims() > 1) {
      return ctx->InvalidArgument(absl::StrCat(
          "reduction_indices must be a scalar or a vector, but has shape ",
          axes.shape().DebugString()));
    }
    const int rank = in.dims();
    std::vector<bool> reduced(rank, false);
    for (int64_t i = 0; i < axes.NumElements(); ++i) {
      const int64_t a = axes.dtype() == DT_INT32 ? axes.data<int32_t>()[i]
                                                 : axes.data<int64_t>()[i];
      if (a < -rank || a >= rank) {
        return ctx->InvalidArgument(absl::StrCat(
            "Invalid reduction dimension ", a, " for input with ", rank,
            " dimensions (input shape ", in.shape().DebugString(), ")"));
      }
      reduced[a < 0 ? a + rank : a] = true;
    }
    TensorShape out_shape;
    std::vector<Group> groups;
    int64_t count = 1;
    bool any_reduced = false;
    for (int i = 0; i < rank; ++i) {
      const int64_t d = in.dim_size(i);
      if (reduced[i]) count *= d;
      if (!reduced[i]) {
        out_shape.AddDim(d);
      } else if (keep_dims_) {
        out_shape.AddDim(1);
      }
      if (d == 1) continue;
      any_reduced |= reduced[i];
      if (!groups.empty() && groups.back().reduced == reduced[i]) {
        groups.back().size *= d;
      } else {
        groups.push_back({d, reduced[i]});
      }
    }
    if (!any_reduced) {  // only dimensions of size 1 (or none) are reduced
      ASSIGN_OR_RETURN(Tensor same, in.Reshaped(out_shape));
      ctx->set_output(0, same);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, out_shape));
    return SwitchOnType(in.dtype(), [&](auto t) -> absl::Status {
      using T = decltype(t);
      if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, uint8_t>) {
        return absl::UnimplementedError(absl::StrCat(
            "no CPU kernel of op '", ctx->node().op(), "' for type ",
            DataTypeString(in.dtype())));
      } else {
        return ReduceTyped<T>(ctx, kind_, in, groups, count, out);
      }
    });
  }

 private:
  Kind kind_;
  bool keep_dims_ = false;
};

template <Kind kKind>
class ReductionKernelOf : public ReductionKernel {
 public:
  ReductionKernelOf() : ReductionKernel(kKind) {}
};

REGISTER_KERNEL("Sum", kDeviceTypeCpu, ReductionKernelOf<Kind::kSum>);
REGISTER_KERNEL("Mean", kDeviceTypeCpu, ReductionKernelOf<Kind::kMean>);
REGISTER_KERNEL("Max", kDeviceTypeCpu, ReductionKernelOf<Kind::kMax>);
REGISTER_KERNEL("Min", kDeviceTypeCpu, ReductionKernelOf<Kind::kMin>);
REGISTER_KERNEL("Prod", kDeviceTypeCpu, ReductionKernelOf<Kind::kProd>);

}  // namespace
}  // namespace tensorflow_ipu
