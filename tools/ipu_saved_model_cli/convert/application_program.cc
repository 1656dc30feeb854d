#include "tools/ipu_saved_model_cli/convert/application_program.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/op_builder.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/ipu/application_compile_op.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

constexpr char kWho[] = "embedded_runtime_save_config";

// The tensor `name` ("n:k") of `graph`.
absl::StatusOr<TensorRef> FindTensor(const Graph& graph, const std::string& name) {
  const InputRef ref = ParseInput(name);
  Node* node = graph.FindNode(ref.node);
  if (node == nullptr || ref.index >= node->num_outputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kWho, ": the graph has no tensor '", name, "'"));
  }
  return TensorRef{node, ref.index};
}

absl::StatusOr<TensorShape> StreamedShape(const std::string& name, const TensorShape& shape,
                                          int64_t batch_size) {
  if (shape.unknown_rank() || shape.dims() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        kWho, ": tensor '", name, "' enters the IPU part with shape ", shape.DebugString(),
        "; the application streams batches, so it needs a rank of at least 1"));
  }
  std::vector<int64_t> dims(shape.dim_sizes().begin(), shape.dim_sizes().end());
  if (dims[0] < 0) dims[0] = batch_size;
  for (size_t d = 1; d < dims.size(); ++d) {
    if (dims[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          kWho, ": tensor '", name, "' enters the IPU part with shape ", shape.DebugString(),
          "; only its first dimension may be unknown (--batch_size sets it)"));
    }
  }
  return TensorShape(dims);
}

}  // namespace

bool InIpuPart(const Node& node) { return OnIpu(node.def()) && !node.op_def().is_host_only; }

absl::StatusOr<IpuPartInterface> FindIpuPartInterface(const Graph& graph,
                                                      const SignatureDef& signature) {
  IpuPartInterface interface;
  std::set<std::string> seen_in, seen_out;
  bool any = false;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = *graph.node(i);
    const bool ipu = InIpuPart(node);
    any |= ipu;
    for (const TensorRef& in : node.inputs()) {
      if (InIpuPart(*in.node) == ipu) continue;
      const std::string name = TensorName(in.node->name(), in.index);
      if (ipu && seen_in.insert(name).second) interface.inputs.push_back(name);
      if (!ipu && seen_out.insert(name).second) interface.outputs.push_back(name);
    }
  }
  if (!any) {
    return absl::FailedPreconditionError(absl::StrCat(
        kWho, ": no node is placed on the IPU (with --no_ipu_placement, or every node "
              "excluded), so there is nothing to compile into an application"));
  }
  std::map<std::string, std::string> sorted;  // a proto map has no order of its own
  for (const auto& [key, info] : signature.outputs()) sorted[info.name()] = key;
  for (const auto& [name, key] : sorted) {
    ASSIGN_OR_RETURN(TensorRef t, FindTensor(graph, name));
    if (InIpuPart(*t.node) && seen_out.insert(name).second) interface.outputs.push_back(name);
  }
  if (interface.inputs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        kWho, ": the IPU part reads no tensor from the host, so a call would have nothing "
              "to give it; the model needs an input"));
  }
  return interface;
}

absl::StatusOr<ApplicationExecutableProto> CompileIpuPart(const Graph& graph,
                                                         const IpuPartInterface& interface,
                                                         int64_t batch_size, int64_t iterations) {
  // The infeed's element: zeros of the streamed shapes (only their dtypes
  // and shapes matter: the runtime feeds the calls' data).
  std::vector<Tensor> element;
  for (const std::string& name : interface.inputs) {
    ASSIGN_OR_RETURN(TensorRef t, FindTensor(graph, name));
    ASSIGN_OR_RETURN(TensorShape shape,
                     StreamedShape(name, t.node->output_shape(t.index), batch_size));
    ASSIGN_OR_RETURN(Tensor zeros, Tensor::Create(t.node->output_type(t.index), shape));
    element.push_back(std::move(zeros));
  }
  ASSIGN_OR_RETURN(data::Dataset shapes, data::Dataset::FromTensors(element));
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed,
                   ipu::IPUInfeedQueue::Create(shapes, "ipu_saved_model_cli/application_infeed"));
  ipu::IPUOutfeedQueue outfeed("ipu_saved_model_cli/application_outfeed");

  auto body = [&](const Scope& b, const std::vector<Output>&,
                  const std::vector<Output>& streamed) -> ipu::ComputationOutputs {
    std::map<std::string, Output> value;  // tensor name -> its value in the body
    for (size_t k = 0; k < interface.inputs.size(); ++k) value[interface.inputs[k]] = streamed[k];
    std::map<std::string, Operation> built;
    // Graph's nodes are in topological order.
    for (int i = 0; i < graph.num_nodes() && b.ok(); ++i) {
      const Node& node = *graph.node(i);
      if (!InIpuPart(node)) continue;
      std::vector<Input> inputs;
      for (const TensorRef& in : node.inputs()) {
        auto v = value.find(TensorName(in.node->name(), in.index));
        inputs.push_back(v != value.end() ? v->second
                                          : Output(built.at(in.node->name()), in.index));
      }
      std::vector<Operation> deps;
      for (const Node* c : node.control_inputs()) {
        auto it = built.find(c->name());
        if (it != built.end()) deps.push_back(it->second);  // CPU ones run before the call
      }
      ops::AttrList attrs;
      for (const auto& [attr, v] : node.def().attr()) attrs.emplace_back(attr, v);
      Operation op = ops::BuildOp(b.WithOpName(node.name()).WithControlDependencies(deps),
                                  node.op(), inputs, attrs);
      built[node.name()] = op;
    }
    if (!b.ok()) return std::vector<Output>{};
    std::vector<Output> results;
    for (const std::string& name : interface.outputs) {
      const InputRef ref = ParseInput(name);
      results.push_back(Output(built.at(ref.node), ref.index));
    }
    return {outfeed.enqueue(b, results)};
  };

  Scope root = Scope::NewRootScope();
  absl::Status loop_status;
  auto program = [&](const Scope& s) -> ipu::ComputationOutputs {
    Scope ipu = ipu::scopes::ipu_scope(s, "/device:IPU:0");
    absl::StatusOr<std::vector<Output>> loop =
        ipu::loops::repeat(ipu, static_cast<int>(iterations), body, {}, &infeed);
    if (!loop.ok()) {
      loop_status = loop.status();
      return std::vector<Output>{};
    }
    return {(*loop)[0].op()};
  };
  absl::StatusOr<std::vector<Output>> compiled = ipu::ipu_compiler::compile(root, program);
  RETURN_IF_ERROR(loop_status);
  RETURN_IF_ERROR(compiled.status());
  ASSIGN_OR_RETURN(ApplicationExecutableProto exe,
                   ipu::application_compile_op::MakeApplicationExecutable(
                       *root.graph(), (*compiled)[0].node()->name()));
  ApplicationSignature* sig = exe.mutable_embedded_runtime_config()->mutable_signature();
  for (size_t k = 0; k < interface.inputs.size(); ++k) {
    sig->mutable_streamed_inputs(k)->set_name(interface.inputs[k]);
  }
  for (size_t k = 0; k < interface.outputs.size(); ++k) {
    sig->mutable_streamed_outputs(k)->set_name(interface.outputs[k]);
  }
  return exe;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
