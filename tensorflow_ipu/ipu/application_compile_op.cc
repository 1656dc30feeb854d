#include "tensorflow_ipu/ipu/application_compile_op.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"

namespace tensorflow_ipu {
namespace ipu {
namespace application_compile_op {
namespace {

// The one value of `attr` over the feed ops seen, or an error naming both.
absl::Status SameFeed(const Node& node, const std::string& value, std::string* seen,
                      absl::string_view what) {
  if (seen->empty()) {
    *seen = value;
    return absl::OkStatus();
  }
  if (*seen == value) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "application_compile_op: the program uses ", what, "s '", *seen, "' and '", value,
      "' (op '", node.name(), "'); an application reads one infeed and writes one outfeed"));
}

absl::StatusOr<ApplicationTensorInfo> Info(const std::string& name, DataType dtype,
                                           const TensorShape& shape, absl::string_view what) {
  if (!shape.IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "application_compile_op: ", what, " '", name, "' has shape ", shape.DebugString(),
        "; values crossing an application's feeds need fully defined shapes"));
  }
  ApplicationTensorInfo info;
  info.set_name(name);
  info.set_dtype(dtype);
  shape.AsProto(info.mutable_shape());
  return info;
}

}  // namespace

absl::StatusOr<ApplicationExecutableProto> MakeApplicationExecutable(
    const Graph& graph, const std::string& run_target) {
  ApplicationExecutableProto exe;
  EmbeddedRuntimeConfig* config = exe.mutable_embedded_runtime_config();
  std::string infeed, outfeed, loop;
  int64_t iterations = 0;
  int64_t max_shard = 0;
  std::map<int64_t, ApplicationTensorInfo> streamed_in, streamed_out;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = *graph.node(i);
    const OpDef& op = node.op_def();
    if (op.is_resource_handle || op.is_reference_variable) {
      return absl::UnimplementedError(absl::StrCat(
          "application_compile_op: the program holds variable '", node.name(),
          "'; an application holds constants only: freeze the variables into constants "
          "first (freeze_variables is not supported)"));
    }
    auto shard = node.def().attr().find(kShardAttr);
    if (shard != node.def().attr().end()) max_shard = std::max(max_shard, shard->second.i());
    const bool dequeue = node.op() == "IpuInfeedDequeue";
    const bool enqueue = node.op() == "IpuOutfeedEnqueue";
    if (node.op() == "Placeholder") {
      ASSIGN_OR_RETURN(ApplicationTensorInfo info,
                       Info(node.name(), node.output_type(0), node.output_shape(0), "placeholder"));
      info.set_argument(config->signature().inputs_size());
      *config->mutable_signature()->add_inputs() = std::move(info);
    }
    if (!dequeue && !enqueue) continue;
    ASSIGN_OR_RETURN(std::string feed, GetNodeAttr<std::string>(node.def(), "feed_name"));
    ASSIGN_OR_RETURN(int64_t index, GetNodeAttr<int64_t>(node.def(), "index"));
    ASSIGN_OR_RETURN(std::string node_loop, GetNodeAttr<std::string>(node.def(), kLoopAttr));
    ASSIGN_OR_RETURN(int64_t count, GetNodeAttr<int64_t>(node.def(), kLoopCountAttr));
    RETURN_IF_ERROR(SameFeed(node, node_loop, &loop, "loop"));
    iterations = count;
    if (dequeue) {
      RETURN_IF_ERROR(SameFeed(node, feed, &infeed, "infeed"));
      ASSIGN_OR_RETURN(ApplicationTensorInfo info,
                       Info(node.name(), node.output_type(0), node.output_shape(0),
                            "infeed component"));
      streamed_in[index] = std::move(info);
    } else {
      RETURN_IF_ERROR(SameFeed(node, feed, &outfeed, "outfeed"));
      const TensorRef& in = node.input(0);
      ASSIGN_OR_RETURN(ApplicationTensorInfo info,
                       Info(node.name(), in.node->output_type(in.index),
                            in.node->output_shape(in.index), "outfeed component"));
      streamed_out[index] = std::move(info);
    }
  }
  if (infeed.empty() || outfeed.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "application_compile_op: the program ", infeed.empty() ? "reads no infeed" : "writes no outfeed",
        "; an application is an ipu::loops::repeat that reads each call's inputs from an "
        "infeed and sends its results to an outfeed"));
  }
  for (const auto& [index, info] : streamed_in) {
    *config->mutable_signature()->add_streamed_inputs() = info;
  }
  for (const auto& [index, info] : streamed_out) {
    *config->mutable_signature()->add_streamed_outputs() = info;
  }
  config->set_iterations(iterations);
  config->set_num_ipus(max_shard + 1);
  config->set_infeed_name(infeed);
  config->set_outfeed_name(outfeed);
  config->set_run_target(run_target);
  *exe.mutable_program() = graph.ToGraphDef();
  RETURN_IF_ERROR(ValidateApplicationExecutable(exe, "application_compile_op"));
  return exe;
}

absl::StatusOr<std::string> experimental_application_compile_op(
    const ipu_compiler::ScopeComputationFn& fn, const std::string& output_path,
    bool freeze_variables) {
  if (freeze_variables) {
    return absl::UnimplementedError(
        "application_compile_op: freeze_variables is not supported; build the program "
        "with constants (a frozen graph) instead of variables");
  }
  Scope root = Scope::NewRootScope();
  ASSIGN_OR_RETURN(std::vector<Output> outputs, ipu_compiler::compile(root, fn));
  RETURN_IF_ERROR(root.status());
  if (outputs.empty() || !outputs[0].valid()) {
    return absl::InvalidArgumentError(
        "application_compile_op: the compiled function gave nothing to run");
  }
  ASSIGN_OR_RETURN(ApplicationExecutableProto exe,
                   MakeApplicationExecutable(*root.graph(), outputs[0].node()->name()));
  RETURN_IF_ERROR(WriteApplicationExecutable(exe, output_path));
  return output_path;
}

}  // namespace application_compile_op
}  // namespace ipu
}  // namespace tensorflow_ipu
