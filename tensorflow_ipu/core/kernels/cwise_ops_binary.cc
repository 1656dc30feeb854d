// CPU kernels of the broadcasting binary ops: arithmetic (Add, AddV2, Sub,
// Mul, RealDiv, Maximum, Minimum), comparisons (bool results) and logical
// ops. Each op is one Eigen expression; cwise_ops_util.h handles shapes.
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"
#include "tensorflow_ipu/core/kernels/wrapping_arithmetic.h"

namespace tensorflow_ipu {
namespace {

using cwise::BinaryKernel;

#define TFIPU_BINARY_FN(NAME, EXPR)                    \
  struct NAME {                                        \
    template <typename A, typename B>                  \
    static auto Apply(const A& a, const B& b) {        \
      return EXPR;                                     \
    }                                                  \
  }
// Integers wrap round on overflow, as in TensorFlow (wrapping_arithmetic.h).
TFIPU_BINARY_FN(AddFn, wrapping::Plus(a, b));
TFIPU_BINARY_FN(SubFn, wrapping::Minus(a, b));
TFIPU_BINARY_FN(MulFn, wrapping::Times(a, b));
TFIPU_BINARY_FN(DivFn, a / b);
TFIPU_BINARY_FN(MaxFn, a.cwiseMax(b));
TFIPU_BINARY_FN(MinFn, a.cwiseMin(b));
TFIPU_BINARY_FN(LessFn, a < b);
TFIPU_BINARY_FN(LessEqualFn, a <= b);
TFIPU_BINARY_FN(GreaterFn, a > b);
TFIPU_BINARY_FN(GreaterEqualFn, a >= b);
TFIPU_BINARY_FN(EqualFn, a == b);
TFIPU_BINARY_FN(NotEqualFn, a != b);
TFIPU_BINARY_FN(AndFn, a && b);
TFIPU_BINARY_FN(OrFn, a || b);
#undef TFIPU_BINARY_FN

template <typename Fn>
using NumericKernel = BinaryKernel<Fn, float, half, double, int32_t, int64_t>;
template <typename Fn>
using OrderedKernel =
    BinaryKernel<Fn, float, half, double, int32_t, int64_t, uint8_t>;

// Equal/NotEqual: with incompatible_shape_error=false, operands that do not
// broadcast compare as a whole: a scalar `false` (Equal) or `true`.
template <typename Fn, bool kValueIfIncompatible>
class EqualityKernel
    : public BinaryKernel<Fn, float, half, double, int32_t, int64_t, uint8_t, bool> {
  using Base =
      BinaryKernel<Fn, float, half, double, int32_t, int64_t, uint8_t, bool>;

 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(error_, ctx->GetAttr<bool>("incompatible_shape_error"));
    return Base::Init(ctx);
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    if (!error_ &&
        !cwise::MakeBroadcastPlan({ctx->input(0).shape(), ctx->input(1).shape()})
             .ok()) {
      ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, TensorShape()));
      out->data<bool>()[0] = kValueIfIncompatible;
      return absl::OkStatus();
    }
    return Base::Compute(ctx);
  }

 private:
  bool error_ = true;
};

REGISTER_KERNEL("Add", kDeviceTypeCpu, NumericKernel<AddFn>);
REGISTER_KERNEL("AddV2", kDeviceTypeCpu, NumericKernel<AddFn>);
REGISTER_KERNEL("Sub", kDeviceTypeCpu, NumericKernel<SubFn>);
REGISTER_KERNEL("Mul", kDeviceTypeCpu, NumericKernel<MulFn>);
REGISTER_KERNEL("RealDiv", kDeviceTypeCpu, BinaryKernel<DivFn, float, half, double>);
REGISTER_KERNEL("Maximum", kDeviceTypeCpu, NumericKernel<MaxFn>);
REGISTER_KERNEL("Minimum", kDeviceTypeCpu, NumericKernel<MinFn>);
REGISTER_KERNEL("Less", kDeviceTypeCpu, OrderedKernel<LessFn>);
REGISTER_KERNEL("LessEqual", kDeviceTypeCpu, OrderedKernel<LessEqualFn>);
REGISTER_KERNEL("Greater", kDeviceTypeCpu, OrderedKernel<GreaterFn>);
REGISTER_KERNEL("GreaterEqual", kDeviceTypeCpu, OrderedKernel<GreaterEqualFn>);
REGISTER_KERNEL("Equal", kDeviceTypeCpu, EqualityKernel<EqualFn, false>);
REGISTER_KERNEL("NotEqual", kDeviceTypeCpu, EqualityKernel<NotEqualFn, true>);
REGISTER_KERNEL("LogicalAnd", kDeviceTypeCpu, BinaryKernel<AndFn, bool>);
REGISTER_KERNEL("LogicalOr", kDeviceTypeCpu, BinaryKernel<OrFn, bool>);

}  // namespace
}  // namespace tensorflow_ipu
