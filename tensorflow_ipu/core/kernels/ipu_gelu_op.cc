// CPU kernel of IpuGelu (core/ops/ipu_gelu_op.cc), the tanh approximation
// of GELU, computed in the input's type as the IPU does.
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"

namespace tensorflow_ipu {
namespace {

// sqrt(2 / pi) and the cubic coefficient of the approximation.
constexpr float kSqrtTwoOverPi = 0.7978845608028654f;
constexpr float kCubic = 0.044715f;

struct GeluFn {
  template <typename A>
  static auto Apply(const A& a) {
    using S = typename Eigen::internal::traits<A>::Scalar;
    return S(0.5f) * a * (S(1.0f) + (S(kSqrtTwoOverPi) * (a + S(kCubic) * a * a * a)).tanh());
  }
};

REGISTER_KERNEL("IpuGelu", kDeviceTypeCpu, cwise::UnaryKernel<GeluFn, float, half>);

}  // namespace
}  // namespace tensorflow_ipu
