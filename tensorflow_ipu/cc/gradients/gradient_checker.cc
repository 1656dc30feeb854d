#include "tensorflow_ipu/cc/gradients/gradient_checker.h"

#include <algorithm>
#include <cmath>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/gradients/gradients.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

absl::StatusOr<std::vector<double>> AsDoubles(const Tensor& t) {
  std::vector<double> v(t.NumElements());
  RETURN_IF_ERROR(SwitchOnType(t.dtype(), [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      v[i] = static_cast<double>(t.data<T>()[i]);
    }
    return absl::OkStatus();
  }));
  return v;
}

absl::Status SetElement(Tensor* t, int64_t i, double value) {
  return SwitchOnType(t->dtype(), [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    t->data<T>()[i] = static_cast<T>(value);
    return absl::OkStatus();
  });
}

}  // namespace

absl::StatusOr<double> ComputeGradientError(const Scope& scope, const Output& x,
                                            const Tensor& x_value,
                                            const Output& y, double delta) {
  RETURN_IF_ERROR(scope.status());
  if (!y.shape().IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ComputeGradientError needs a static shape for y, got ",
        y.shape().DebugString()));
  }
  auto seed = ops::Placeholder(scope.WithOpName("gradient_checker_seed"),
                               y.type(), ops::Placeholder::Shape(y.shape()));
  std::vector<Output> dx;
  RETURN_IF_ERROR(AddSymbolicGradients(scope, {y}, {x}, {seed}, &dx));
  ClientSession session(scope);

  const int64_t nx = x_value.NumElements();
  const int64_t ny = y.shape().num_elements();
  // Symbolic Jacobian, one row per element of y.
  std::vector<std::vector<double>> symbolic(ny);
  for (int64_t j = 0; j < ny; ++j) {
    ASSIGN_OR_RETURN(Tensor s, Tensor::Create(y.type(), y.shape()));
    for (int64_t k = 0; k < ny; ++k) RETURN_IF_ERROR(SetElement(&s, k, k == j));
    std::vector<Tensor> out;
    RETURN_IF_ERROR(session.Run({{x, x_value}, {seed, s}}, {dx[0]}, &out));
    ASSIGN_OR_RETURN(symbolic[j], AsDoubles(out[0]));
  }
  // Numeric Jacobian, one column per element of x.
  ASSIGN_OR_RETURN(std::vector<double> x0, AsDoubles(x_value));
  double max_error = 0;
  for (int64_t i = 0; i < nx; ++i) {
    std::vector<double> ys[2];
    for (int side = 0; side < 2; ++side) {
      Tensor shifted = x_value.DeepCopy();
      RETURN_IF_ERROR(SetElement(&shifted, i, x0[i] + (side ? delta : -delta)));
      std::vector<Tensor> out;
      RETURN_IF_ERROR(session.Run({{x, shifted}}, {y}, &out));
      ASSIGN_OR_RETURN(ys[side], AsDoubles(out[0]));
    }
    for (int64_t j = 0; j < ny; ++j) {
      const double numeric = (ys[1][j] - ys[0][j]) / (2 * delta);
      max_error = std::max(max_error, std::fabs(numeric - symbolic[j][i]));
    }
  }
  return max_error;
}

}  // namespace tensorflow_ipu
