#include "tensorflow_ipu/ipu/ipu_compiler.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace ipu {
namespace ipu_compiler {
namespace {

absl::Status NotOnIpu(const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "A computation has been compiled, however it was not placed on an IPU "
      "device. This computation will not be executed on an IPU. ",
      why, " Build it under ipu::scopes::ipu_scope(scope, \"/device:IPU:0\")."));
}

absl::Status DynamicShape(const std::string& tensor, const TensorShape& shape) {
  return absl::InvalidArgumentError(absl::StrCat(
      "ipu_compiler.compile needs fully defined shapes, but tensor '", tensor,
      "' has shape ", shape.DebugString(),
      ". Give placeholders complete shapes (with datasets, batch with "
      "drop_remainder=True)"));
}

// The op returned for a function without outputs: a NoOp of the cluster
// that control-depends on the function's sinks (ops nothing else in the
// graph reads), so running it runs every op the function built.
absl::StatusOr<Operation> RunnableOp(const Scope& scope,
                                     const std::string& cluster,
                                     int first_node) {
  Graph* graph = scope.graph();
  std::vector<Operation> sinks;
  for (int id = first_node; id < graph->num_nodes(); ++id) {
    Node* n = graph->node(id);
    if (n->data_consumers().empty() && n->control_consumers().empty()) {
      sinks.push_back(Operation(n));
    }
  }
  tensorflow_ipu::ops::NoOp op(
      scope.WithAttr(kCompileClusterAttr, MakeAttrValue(cluster))
          .WithControlDependencies(sinks)
          .WithOpName(cluster));
  if (!scope.ok()) return scope.status();
  return op.operation;
}

}  // namespace

absl::StatusOr<std::vector<Output>> compile(const Scope& scope,
                                            const ComputationFn& fn,
                                            const std::vector<Output>& inputs) {
  if (!scope.ok()) return scope.status();
  absl::StatusOr<DeviceName> device = ParseDeviceName(scope.device());
  if (!device.ok() || !device->IsIpu()) {
    return NotOnIpu(absl::StrCat("The scope's device is '", scope.device(), "'."));
  }
  for (const Output& in : inputs) {
    if (!in.valid()) {
      return absl::InvalidArgumentError("compile was given an invalid input");
    }
    if (!in.shape().IsFullyDefined()) return DynamicShape(in.name(), in.shape());
  }
  static std::atomic<int> next_cluster{0};
  const std::string cluster = absl::StrCat("compile_", next_cluster++);
  Graph* graph = scope.graph();
  const int first_node = graph->num_nodes();
  std::vector<Output> outputs =
      fn(scope.WithAttr(kCompileClusterAttr, MakeAttrValue(cluster)), inputs);
  if (!scope.ok()) return scope.status();

  bool any_on_ipu = false;
  for (int id = first_node; id < graph->num_nodes(); ++id) {
    const Node* n = graph->node(id);
    any_on_ipu |= n->requested_device().IsIpu();
    for (int k = 0; k < n->num_outputs(); ++k) {
      if (!n->output_shape(k).IsFullyDefined()) {
        return DynamicShape(absl::StrCat(n->name(), ":", k), n->output_shape(k));
      }
    }
  }
  if (!any_on_ipu) return NotOnIpu("The function placed no op on an IPU.");
  if (outputs.empty()) {
    ASSIGN_OR_RETURN(Operation op, RunnableOp(scope, cluster, first_node));
    outputs.push_back(Output(op, 0));
  }
  return outputs;
}

}  // namespace ipu_compiler
}  // namespace ipu
}  // namespace tensorflow_ipu
