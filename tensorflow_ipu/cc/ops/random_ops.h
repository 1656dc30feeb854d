// Client wrappers of the random ops. With both seeds 0 every graph draws
// different values; with a seed the values are reproducible everywhere.
//
//   auto u = ops::RandomUniform(scope, {2, 3}, DT_FLOAT,
//                               ops::RandomUniform::Seed(7));
#ifndef TENSORFLOW_IPU_CC_OPS_RANDOM_OPS_H_
#define TENSORFLOW_IPU_CC_OPS_RANDOM_OPS_H_

#include <cstdint>

#include "tensorflow_ipu/cc/ops/op_builder.h"

namespace tensorflow_ipu {
namespace ops {

struct RandomAttrs {
  RandomAttrs Seed(int64_t s) const {
    RandomAttrs a = *this;
    a.seed_ = s;
    return a;
  }
  RandomAttrs Seed2(int64_t s) const {
    RandomAttrs a = *this;
    a.seed2_ = s;
    return a;
  }
  int64_t seed_ = 0;
  int64_t seed2_ = 0;
};

// Uniform in [0, 1).
class RandomUniform : public SingleOutputOp {
 public:
  using Attrs = RandomAttrs;
  static Attrs Seed(int64_t s) { return Attrs().Seed(s); }
  RandomUniform(const Scope& scope, Input shape, DataType dtype,
                const Attrs& attrs = Attrs());
};

class RandomNormal : public SingleOutputOp {
 public:
  using Attrs = RandomAttrs;
  static Attrs Seed(int64_t s) { return Attrs().Seed(s); }
  RandomNormal(const Scope& scope, Input shape, DataType dtype,
               const Attrs& attrs = Attrs());
};

// Normal values beyond two standard deviations are redrawn.
class TruncatedNormal : public SingleOutputOp {
 public:
  using Attrs = RandomAttrs;
  static Attrs Seed(int64_t s) { return Attrs().Seed(s); }
  TruncatedNormal(const Scope& scope, Input shape, DataType dtype,
                  const Attrs& attrs = Attrs());
};

}  // namespace ops
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CC_OPS_RANDOM_OPS_H_
