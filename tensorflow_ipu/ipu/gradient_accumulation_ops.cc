#include "tensorflow_ipu/ipu/gradient_accumulation_ops.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/initializers.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace ipu {
namespace ops {

absl::StatusOr<Output> ipu_stateful_gradient_accumulate(const Scope& scope, Output value,
                                                        int num_mini_batches,
                                                        bool verify_usage) {
  RETURN_IF_ERROR(scope.status());
  if (num_mini_batches < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ipu_stateful_gradient_accumulate: num_mini_batches must be at least 1, but it is ",
        num_mini_batches));
  }
  const std::string name = scope.graph()->UniqueName("IpuStatefulGradientAccumulate");
  // The accumulator lives outside the loop, on the IPU the value is on.
  Scope beside = scope.WithAbsoluteNameScope("")
                     .WithNoControlDependencies()
                     .WithoutAttrs()
                     .WithDevice(scope.device());
  if (const AttrValue* shard = scope.FindAttr(kShardAttr)) {
    beside = beside.WithAttr(kShardAttr, *shard);
  }
  VariableScope vs(beside, name, {.use_resource = true});
  ASSIGN_OR_RETURN(Variable acc, vs.get_variable("accumulator", value.shape(), value.type(),
                                                 initializers::Zeros(), /*trainable=*/false));
  Operation added = acc.assign_add(scope, value);
  // The sum, once every num_mini_batches iterations: marked, so that it and
  // what depends on it form the update phase.
  const Scope update =
      scope.WithAttr(kGradientAccumulationAttr, MakeAttrValue(int64_t{num_mini_batches}))
          .WithControlDependencies({added});
  Output sum = tensorflow_ipu::ops::Identity(
      update.WithOpName(name).WithAttr(kStatefulGradientAccumulateAttr,
                                       MakeAttrValue(verify_usage)),
      acc.value(update));
  const Scope after = update.WithControlDependencies({sum.op()});
  acc.assign(after, tensorflow_ipu::ops::ZerosLike(after, acc.value(after)));
  RETURN_IF_ERROR(scope.status());
  return sum;
}

}  // namespace ops
}  // namespace ipu
}  // namespace tensorflow_ipu
