#include "tensorflow_ipu/cc/variables/initializers.h"

#include <cmath>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/array_ops.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/cc/ops/math_ops.h"
#include "tensorflow_ipu/cc/ops/random_ops.h"

namespace tensorflow_ipu {
namespace initializers {
namespace {

Tensor ShapeTensor(const TensorShape& shape) {
  std::vector<int32_t> dims;
  for (int64_t d : shape.dim_sizes()) dims.push_back(static_cast<int32_t>(d));
  return Tensor::Vector<int32_t>(dims);
}

// `value` (a double) as a scalar constant of `dtype`.
Output ScalarOf(const Scope& scope, double value, DataType dtype) {
  Tensor t(dtype, TensorShape());
  absl::Status s = SwitchOnType(dtype, [&](auto v) -> absl::Status {
    using T = decltype(v);
    t.data<T>()[0] = static_cast<T>(value);
    return absl::OkStatus();
  });
  scope.UpdateStatus(s);
  return ops::Const(scope, t);
}

// min + (max - min) * u, or mean + stddev * n.
Output Affine(const Scope& scope, Output x, double scale, double shift,
              DataType dtype) {
  Output y = x;
  if (scale != 1.0) y = ops::Mul(scope, y, ScalarOf(scope, scale, dtype));
  if (shift != 0.0) y = ops::Add(scope, y, ScalarOf(scope, shift, dtype));
  return y;
}

}  // namespace

Initializer Constant(double value) {
  return [value](const Scope& scope, const TensorShape& shape, DataType dtype) {
    return ops::Fill(scope, ShapeTensor(shape), ScalarOf(scope, value, dtype))
        .output;
  };
}

Initializer Zeros() { return Constant(0.0); }
Initializer Ones() { return Constant(1.0); }

Initializer Value(const Tensor& value) {
  return [value](const Scope& scope, const TensorShape& shape, DataType dtype) {
    if (value.shape() != shape || value.dtype() != dtype) {
      scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          "The initial value ", value.SummaryString(),
          " does not match the variable's type ", DataTypeString(dtype),
          " and shape ", shape.DebugString())));
    }
    return ops::Const(scope, value).output;
  };
}

Initializer RandomUniform(double minval, double maxval, int64_t seed) {
  return [=](const Scope& scope, const TensorShape& shape, DataType dtype) {
    Output u = ops::RandomUniform(scope, ShapeTensor(shape), dtype,
                                  ops::RandomUniform::Seed(seed));
    return Affine(scope, u, maxval - minval, minval, dtype);
  };
}

Initializer RandomNormal(double mean, double stddev, int64_t seed) {
  return [=](const Scope& scope, const TensorShape& shape, DataType dtype) {
    Output n = ops::RandomNormal(scope, ShapeTensor(shape), dtype,
                                 ops::RandomNormal::Seed(seed));
    return Affine(scope, n, stddev, mean, dtype);
  };
}

Initializer TruncatedNormal(double mean, double stddev, int64_t seed) {
  return [=](const Scope& scope, const TensorShape& shape, DataType dtype) {
    Output n = ops::TruncatedNormal(scope, ShapeTensor(shape), dtype,
                                    ops::TruncatedNormal::Seed(seed));
    return Affine(scope, n, stddev, mean, dtype);
  };
}

Initializer GlorotUniform(int64_t seed) {
  return [seed](const Scope& scope, const TensorShape& shape, DataType dtype) {
    // TensorFlow's fans: scalars and vectors use their size for both;
    // higher ranks multiply the leading dims into a receptive field.
    double fan_in = 1, fan_out = 1;
    const int rank = shape.dims();
    if (rank == 1) {
      fan_in = fan_out = static_cast<double>(shape.dim_size(0));
    } else if (rank >= 2) {
      double receptive = 1;
      for (int i = 0; i < rank - 2; ++i) receptive *= shape.dim_size(i);
      fan_in = shape.dim_size(rank - 2) * receptive;
      fan_out = shape.dim_size(rank - 1) * receptive;
    }
    const double limit = std::sqrt(6.0 / std::max(1.0, fan_in + fan_out));
    return RandomUniform(-limit, limit, seed)(scope, shape, dtype);
  };
}

}  // namespace initializers
}  // namespace tensorflow_ipu
