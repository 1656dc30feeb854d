#include "tensorflow_ipu/ipu/ipu_compiler.h"

#include <algorithm>
#include <atomic>
#include <vector>

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
// that runs the function's side effects, as a TensorFlow function without
// outputs does. It control-depends on the function's last stateful ops
// (OpDef::is_stateful: variable writes, enqueues, ...; those no other
// stateful op of the function waits for), so running it runs them and what
// they need; a stateless op whose value nothing uses is dead and does not
// run.
absl::StatusOr<Operation> RunnableOp(const Scope& scope,
                                     const std::string& cluster,
                                     int first_node) {
  Graph* graph = scope.graph();
  // needed[id - first_node]: a stateful op of the function, or an op one
  // needs. Node ids are in build order, so consumers come later.
  std::vector<bool> needed(graph->num_nodes() - first_node, false);
  auto is_needed = [&](const Node* n) {
    return n->id() >= first_node && needed[n->id() - first_node];
  };
  std::vector<Operation> side_effects;
  for (int id = graph->num_nodes() - 1; id >= first_node; --id) {
    Node* n = graph->node(id);
    bool consumer_needed = false;
    for (const Node* c : n->data_consumers()) consumer_needed |= is_needed(c);
    for (const Node* c : n->control_consumers()) consumer_needed |= is_needed(c);
    needed[id - first_node] = consumer_needed || n->op_def().is_stateful;
    if (n->op_def().is_stateful && !consumer_needed) {
      side_effects.push_back(Operation(n));
    }
  }
  std::reverse(side_effects.begin(), side_effects.end());
  tensorflow_ipu::ops::NoOp op(
      scope.WithAttr(kCompileClusterAttr, MakeAttrValue(cluster))
          .WithControlDependencies(side_effects)
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
