#include "tensorflow_ipu/runtime/ipu_cluster_op.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

absl::Status ClusterShapes(InferenceContext* c) {
  ASSIGN_OR_RETURN(std::vector<TensorShape> shapes,
                   c->GetAttr<std::vector<TensorShape>>(
                       kIpuClusterResultShapesAttr));
  if (static_cast<int>(shapes.size()) != c->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attr ", kIpuClusterResultShapesAttr, " has ", shapes.size(),
        " shapes for ", c->num_outputs(), " results"));
  }
  for (int k = 0; k < c->num_outputs(); ++k) c->set_output(k, shapes[k]);
  return absl::OkStatus();
}

REGISTER_OP(OpDefBuilder(kIpuClusterOp)
                .InputTypeList("args", kIpuClusterArgTypesAttr)
                .OutputTypeList("results", kIpuClusterResultTypesAttr)
                .Attr(kIpuClusterNameAttr, "string")
                .Attr(kIpuClusterResultShapesAttr, "list(shape)")
                .SetIsStateful()
                .SetShapeFn(ClusterShapes));

}  // namespace
}  // namespace tensorflow_ipu
