// CPU kernels of the unary elementwise ops: Neg, Square, Sqrt, Rsqrt, Exp,
// Log, Tanh, Sigmoid, Reciprocal, Relu and LogicalNot.
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"
#include "tensorflow_ipu/core/kernels/wrapping_arithmetic.h"

namespace tensorflow_ipu {
namespace {

using cwise::UnaryKernel;

#define TFIPU_UNARY_FN(NAME, EXPR)                         \
  struct NAME {                                            \
    template <typename A>                                  \
    static auto Apply(const A& a) {                        \
      using S = typename Eigen::internal::traits<A>::Scalar; \
      (void)sizeof(S);                                     \
      return EXPR;                                         \
    }                                                      \
  }
// Integers wrap round on overflow (wrapping_arithmetic.h).
TFIPU_UNARY_FN(NegFn, wrapping::Negated(a));
TFIPU_UNARY_FN(SquareFn, wrapping::Squared(a));
TFIPU_UNARY_FN(SqrtFn, a.sqrt());
TFIPU_UNARY_FN(RsqrtFn, a.rsqrt());
TFIPU_UNARY_FN(ExpFn, a.exp());
TFIPU_UNARY_FN(LogFn, a.log());
TFIPU_UNARY_FN(TanhFn, a.tanh());
TFIPU_UNARY_FN(SigmoidFn, a.sigmoid());
TFIPU_UNARY_FN(ReciprocalFn, a.inverse());
TFIPU_UNARY_FN(ReluFn, a.cwiseMax(S(0)));
TFIPU_UNARY_FN(NotFn, a == a.constant(false));
#undef TFIPU_UNARY_FN

template <typename Fn>
using NumericKernel = UnaryKernel<Fn, float, half, double, int32_t, int64_t>;
template <typename Fn>
using FloatKernel = UnaryKernel<Fn, float, half, double>;

REGISTER_KERNEL("Neg", kDeviceTypeCpu, NumericKernel<NegFn>);
REGISTER_KERNEL("Square", kDeviceTypeCpu, NumericKernel<SquareFn>);
REGISTER_KERNEL("Relu", kDeviceTypeCpu, NumericKernel<ReluFn>);
REGISTER_KERNEL("Sqrt", kDeviceTypeCpu, FloatKernel<SqrtFn>);
REGISTER_KERNEL("Rsqrt", kDeviceTypeCpu, FloatKernel<RsqrtFn>);
REGISTER_KERNEL("Exp", kDeviceTypeCpu, FloatKernel<ExpFn>);
REGISTER_KERNEL("Log", kDeviceTypeCpu, FloatKernel<LogFn>);
REGISTER_KERNEL("Tanh", kDeviceTypeCpu, FloatKernel<TanhFn>);
REGISTER_KERNEL("Sigmoid", kDeviceTypeCpu, FloatKernel<SigmoidFn>);
REGISTER_KERNEL("Reciprocal", kDeviceTypeCpu, FloatKernel<ReciprocalFn>);
REGISTER_KERNEL("LogicalNot", kDeviceTypeCpu, UnaryKernel<NotFn, bool>);

}  // namespace
}  // namespace tensorflow_ipu
