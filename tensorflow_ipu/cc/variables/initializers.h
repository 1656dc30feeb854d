// Initializers: how get_variable makes a variable's first value, with
// TensorFlow's names and defaults. Random initializers take a seed; with the
// same seed they give the same values in every process and on every thread
// count (seed 0 draws fresh values each time the graph is built).
//
//   vs.get_variable("w", {784, 256}, DT_FLOAT, initializers::GlorotUniform(7));
//   vs.get_variable("b", {256}, DT_FLOAT, initializers::Zeros());
#ifndef TENSORFLOW_IPU_CC_VARIABLES_INITIALIZERS_H_
#define TENSORFLOW_IPU_CC_VARIABLES_INITIALIZERS_H_

#include <cstdint>
#include <functional>

#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/core/types.h"

namespace tensorflow_ipu {

// Builds the ops computing an initial value of `shape` and `dtype`.
using Initializer =
    std::function<Output(const Scope&, const TensorShape& shape, DataType dtype)>;

namespace initializers {

// Every element `value` (cast to the variable's dtype).
Initializer Constant(double value);
Initializer Zeros();
Initializer Ones();
// A whole tensor, whose shape must match the variable's.
Initializer Value(const Tensor& value);
Initializer RandomUniform(double minval = 0.0, double maxval = 1.0,
                          int64_t seed = 0);
Initializer RandomNormal(double mean = 0.0, double stddev = 1.0,
                         int64_t seed = 0);
// Normal values beyond two deviations redrawn.
Initializer TruncatedNormal(double mean = 0.0, double stddev = 1.0,
                            int64_t seed = 0);
// Uniform in [-limit, limit] with limit = sqrt(6 / (fan_in + fan_out)),
// fans from the last two dimensions, as TensorFlow computes them.
Initializer GlorotUniform(int64_t seed = 0);

}  // namespace initializers
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CC_VARIABLES_INITIALIZERS_H_
