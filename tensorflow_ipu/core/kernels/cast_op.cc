// CPU kernel of Cast between float, half, double, int32, int64, uint8 and
// bool. Conversions are C++'s (float -> int truncates toward zero), except
// where C++ leaves them undefined: a floating-point value beyond an integer
// type's range saturates to its lowest or highest value, and NaN becomes 0,
// exactly as the simulated IPU converts (poplar_sim/type.h). To bool is `x != 0`;
// a cast to the same type forwards the input's buffer. `Truncate` only
// matters for rounding modes this CPU kernel does not vary.
#include <cmath>
#include <limits>
#include <type_traits>

#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"

namespace tensorflow_ipu {
namespace {

template <typename T>
constexpr bool kIsFloating = std::is_floating_point_v<T> || std::is_same_v<T, half>;

// Floating point -> integer, defined for every input.
template <typename From, typename To>
struct SaturatingCast {
  To operator()(const From& x) const {
    double v;
    if constexpr (std::is_same_v<From, half>) {
      v = static_cast<float>(x);
    } else {
      v = static_cast<double>(x);
    }
    if (std::isnan(v)) return To(0);
    if (v <= static_cast<double>(std::numeric_limits<To>::lowest())) {
      return std::numeric_limits<To>::lowest();
    }
    if (v >= static_cast<double>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(v);
  }
};

template <typename From, typename To>
absl::Status CastCompute(OpKernelContext* ctx) {
  const Tensor& x = ctx->input(0);
  ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, x.shape()));
  cwise::Vec<From> xv = cwise::FlatVec<From>(x);
  if constexpr (kIsFloating<From> && std::is_integral_v<To> &&
                !std::is_same_v<To, bool>) {
    cwise::Assign(ctx, cwise::FlatVec<To>(*out),
                  xv.unaryExpr(SaturatingCast<From, To>()));
  } else {
    cwise::Assign(ctx, cwise::FlatVec<To>(*out), xv.template cast<To>());
  }
  return absl::OkStatus();
}

absl::Status Forward(OpKernelContext* ctx) {
  ctx->set_output(0, ctx->input(0));
  return absl::OkStatus();
}

class CastKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(DataType src, ctx->GetAttr<DataType>("SrcT"));
    ASSIGN_OR_RETURN(DataType dst, ctx->GetAttr<DataType>("DstT"));
    if (src == dst) {
      fn_ = &Forward;
      return absl::OkStatus();
    }
    numel_hint_ = ctx->node().output_shape(0).num_elements();
    return SwitchOnType(src, [&](auto from) {
      return SwitchOnType(dst, [&](auto to) {
        fn_ = &CastCompute<decltype(from), decltype(to)>;
        return absl::OkStatus();
      });
    });
  }
  absl::Status Compute(OpKernelContext* ctx) override { return fn_(ctx); }
  bool IsExpensive() const override {
    return fn_ != &Forward &&
           (numel_hint_ < 0 || numel_hint_ >= cwise::kParallelThreshold);
  }

 private:
  cwise::ComputeFn fn_ = nullptr;
  int64_t numel_hint_ = -1;
};

REGISTER_KERNEL("Cast", kDeviceTypeCpu, CastKernel);

}  // namespace
}  // namespace tensorflow_ipu
