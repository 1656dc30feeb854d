#include "tensorflow_ipu/cc/ops/random_ops.h"

#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace ops {
namespace {

Operation BuildRandom(const Scope& scope, const char* op, Input shape,
                      DataType dtype, const RandomAttrs& attrs) {
  return BuildOp(scope, op, {shape},
                 {{"dtype", MakeAttrValue(dtype)},
                  {"seed", MakeAttrValue(attrs.seed_)},
                  {"seed2", MakeAttrValue(attrs.seed2_)}});
}

}  // namespace

RandomUniform::RandomUniform(const Scope& scope, Input shape, DataType dtype,
                             const Attrs& attrs)
    : SingleOutputOp(BuildRandom(scope, "RandomUniform", shape, dtype, attrs)) {}

RandomNormal::RandomNormal(const Scope& scope, Input shape, DataType dtype,
                           const Attrs& attrs)
    : SingleOutputOp(
          BuildRandom(scope, "RandomStandardNormal", shape, dtype, attrs)) {}

TruncatedNormal::TruncatedNormal(const Scope& scope, Input shape,
                                 DataType dtype, const Attrs& attrs)
    : SingleOutputOp(BuildRandom(scope, "TruncatedNormal", shape, dtype, attrs)) {}

}  // namespace ops
}  // namespace tensorflow_ipu
