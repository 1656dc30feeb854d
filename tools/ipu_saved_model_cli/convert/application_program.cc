#include "tools/ipu_saved_model_cli/convert/application_program.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/op_builder.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/ipu/application_compile_op.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/pipelining/pipelining_ops.h"
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

// Builds the nodes `take` selects (in the graph's topological order) under
// `scope`, reading their inputs from `value` (tensor name -> value) and
// adding their outputs to it. Control inputs among them are kept; those from
// elsewhere ran before the call.
void ImportNodes(const Graph& graph, const std::function<bool(const Node&)>& take,
                 const Scope& scope, std::map<std::string, Output>* value) {
  std::map<std::string, Operation> built;
  for (int i = 0; i < graph.num_nodes() && scope.ok(); ++i) {
    const Node& node = *graph.node(i);
    if (!take(node)) continue;
    std::vector<Input> inputs;
    for (const TensorRef& in : node.inputs()) {
      auto v = value->find(TensorName(in.node->name(), in.index));
      if (v == value->end()) {
        scope.UpdateStatus(absl::InternalError(absl::StrCat(
            kWho, ": node '", node.name(), "' reads '", TensorName(in.node->name(), in.index),
            "', which its part of the program does not have")));
        return;
      }
      inputs.push_back(v->second);
    }
    std::vector<Operation> deps;
    for (const Node* c : node.control_inputs()) {
      auto it = built.find(c->name());
      if (it != built.end()) deps.push_back(it->second);
    }
    ops::AttrList attrs;
    for (const auto& [attr, v] : node.def().attr()) attrs.emplace_back(attr, v);
    Operation op = ops::BuildOp(scope.WithOpName(node.name()).WithControlDependencies(deps),
                                node.op(), inputs, attrs);
    if (!scope.ok()) return;
    built[node.name()] = op;
    for (int k = 0; k < op.node()->num_outputs(); ++k) {
      (*value)[TensorName(node.name(), k)] = Output(op, k);
    }
  }
}

std::vector<Output> Values(const std::map<std::string, Output>& value,
                           const std::vector<std::string>& names) {
  std::vector<Output> out;
  for (const std::string& name : names) out.push_back(value.at(name));
  return out;
}

// A stage of a pipelined IPU part (the pipelining converter marks each node
// with its stage and the stage's IPU): what it hands the next stage.
struct PipelineStage {
  int ipu = 0;
  // Tensors of this stage or earlier that later stages (or the outfeed)
  // read; for the last stage, the outfeed's tensors.
  std::vector<std::string> live_out;
};

int64_t StageOf(const Node& node) {
  auto it = node.def().attr().find(kPipelineStageAttr);
  return it == node.def().attr().end() ? -1 : it->second.i();
}

absl::StatusOr<std::vector<PipelineStage>> FindStages(const Graph& graph,
                                                     const IpuPartInterface& interface) {
  int64_t num_stages = 0;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (InIpuPart(*graph.node(i))) num_stages = std::max(num_stages, StageOf(*graph.node(i)) + 1);
  }
  if (num_stages < 2) return std::vector<PipelineStage>{};  // not pipelined
  std::vector<PipelineStage> stages(num_stages);
  // Producer and last consumer stage of every tensor the part uses; the
  // streamed inputs come before stage 0, the outfeed after the last stage.
  std::map<std::string, std::pair<int64_t, int64_t>> span;
  for (const std::string& name : interface.inputs) span[name] = {-1, -1};
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = *graph.node(i);
    if (!InIpuPart(node)) continue;
    const int64_t stage = StageOf(node);
    if (stage < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          kWho, ": node '", node.name(), "' is on the IPU but in no pipeline stage"));
    }
    auto shard = node.def().attr().find(kShardAttr);
    stages[stage].ipu = shard == node.def().attr().end() ? 0 : static_cast<int>(shard->second.i());
    for (int k = 0; k < node.num_outputs(); ++k) span[TensorName(node.name(), k)] = {stage, stage};
    for (const TensorRef& in : node.inputs()) {
      auto& [from, to] = span.at(TensorName(in.node->name(), in.index));
      to = std::max(to, stage);
    }
  }
  for (const std::string& name : interface.outputs) span.at(name).second = num_stages;
  for (int64_t k = 0; k + 1 < num_stages; ++k) {
    for (const auto& [name, fs] : span) {
      if (fs.first <= k && fs.second > k) stages[k].live_out.push_back(name);
    }
  }
  stages.back().live_out = interface.outputs;
  return stages;
}

absl::StatusOr<Operation> PipelineProgram(const Scope& scope, const Graph& graph,
                                          const IpuPartInterface& interface,
                                          const std::vector<PipelineStage>& stages,
                                          int iterations, const ipu::IPUInfeedQueue& infeed,
                                          ipu::IPUOutfeedQueue* outfeed) {
  std::vector<ipu::pipelining_ops::ComputationalStage> fns;
  std::vector<int> device_mapping;
  for (size_t k = 0; k < stages.size(); ++k) {
    device_mapping.push_back(stages[k].ipu);
    const std::vector<std::string>& live_in = k == 0 ? interface.inputs : stages[k - 1].live_out;
    fns.push_back([&, k, live_in](const Scope& s, const std::vector<Output>& args) {
      std::map<std::string, Output> value;
      for (size_t a = 0; a < live_in.size(); ++a) value[live_in[a]] = args[a];
      ImportNodes(graph, [k](const Node& n) { return InIpuPart(n) && StageOf(n) == static_cast<int64_t>(k); },
                  s, &value);
      if (!s.ok()) return std::vector<Output>{};
      return Values(value, stages[k].live_out);
    });
  }
  return ipu::pipelining_ops::pipeline(scope, fns, iterations, /*repeat_count=*/1, {}, &infeed,
                                       outfeed, nullptr, device_mapping);
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
    ImportNodes(graph, [](const Node& n) { return InIpuPart(n); }, b, &value);
    if (!b.ok()) return std::vector<Output>{};
    return {outfeed.enqueue(b, Values(value, interface.outputs))};
  };

  Scope root = Scope::NewRootScope();
  absl::Status loop_status;
  ASSIGN_OR_RETURN(std::vector<PipelineStage> stages, FindStages(graph, interface));
  const int64_t per_run = iterations * std::max<int64_t>(1, stages.size());
  if (iterations < 1 || per_run > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        kWho, ": ", iterations, " batches per step over ", stages.size(),
        " pipeline stages is not a loop count the IPU can run (1 to ",
        std::numeric_limits<int>::max(), ")"));
  }
  auto program = [&](const Scope& s) -> ipu::ComputationOutputs {
    Scope ipu = ipu::scopes::ipu_scope(s, "/device:IPU:0");
    if (!stages.empty()) {
      // A pipelined part: the vendor's gradient_accumulation_count of
      // batch_per_step x stages micro-batches (calls) per run.
      absl::StatusOr<Operation> op =
          PipelineProgram(ipu, graph, interface, stages,
                          static_cast<int>(iterations * static_cast<int64_t>(stages.size())),
                          infeed, &outfeed);
      if (!op.ok()) {
        loop_status = op.status();
        return std::vector<Output>{};
      }
      return {*op};
    }
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
