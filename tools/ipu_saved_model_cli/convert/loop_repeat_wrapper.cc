#include "tools/ipu_saved_model_cli/convert/loop_repeat_wrapper.h"

#include <filesystem>
#include <map>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"
#include "tools/ipu_saved_model_cli/convert/application_program.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"
#include "tools/ipu_saved_model_cli/convert/ipu_part.h"
#include "tools/ipu_saved_model_cli/convert/md5sum.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

constexpr char kHelp[] =
    "`embedded_runtime_save_config` must be a dictionary containing the following items { "
    "'embedded_runtime_exec_cachedir': The cache output directory of the embedded "
    "application runtime, 'runtime_api_timeout_us': The timeout for the embedded "
    "application }.";
constexpr char kRuntimeNode[] = "ApplicationRuntime";
constexpr char kCallNode[] = "ApplicationCall";

const char* JsonTypeName(const nlohmann::json& j) {
  if (j.is_array()) return "list";
  if (j.is_string()) return "str";
  if (j.is_boolean()) return "bool";
  if (j.is_number_integer()) return "int";
  if (j.is_number()) return "float";
  return "NoneType";
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoopRepeatWrapper>> LoopRepeatWrapper::Create(
    const ConvertOptions& options) {
  std::unique_ptr<LoopRepeatWrapper> c(new LoopRepeatWrapper);
  const nlohmann::json& config = options.embedded_runtime_save_config;
  if (config.is_null()) return c;
  // The original's checks, in its order and words.
  if (options.merge_subgraphs) {
    return absl::InvalidArgumentError(
        "The `merge_subgraphs` must be false with `merge_subgraphs=False` during the "
        "embedded application runtime compilation.");
  }
  if (!options.int64_to_int32_conversion) {
    return absl::InvalidArgumentError(
        "The `int64_to_int32_conversion` must be True with `int64_to_int32_conversion=True` "
        "during the embedded application runtime compilation.");
  }
  if (!config.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid type (", JsonTypeName(config), ") for `embedded_runtime_save_config`. ", kHelp));
  }
  for (const char* key : {"embedded_runtime_exec_cachedir", "runtime_api_timeout_us"}) {
    if (!config.contains(key)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Key '", key, "' missing from `embedded_runtime_save_config`. ", kHelp));
    }
  }
  // Fixed defect: the original passes any value on; a wrong one failed
  // late, or never.
  const nlohmann::json& dir = config["embedded_runtime_exec_cachedir"];
  const nlohmann::json& timeout = config["runtime_api_timeout_us"];
  if (!dir.is_string() || dir.get<std::string>().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedded_runtime_save_config: embedded_runtime_exec_cachedir should be a directory "
        "name (a non-empty string), not ", dir.dump()));
  }
  if (!timeout.is_number_integer() || timeout.get<int64_t>() <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedded_runtime_save_config: runtime_api_timeout_us should be an integer number of "
        "microseconds greater than 0, not ", timeout.dump()));
  }
  for (const auto& [key, value] : config.items()) {
    if (key != "embedded_runtime_exec_cachedir" && key != "runtime_api_timeout_us") {
      return absl::InvalidArgumentError(absl::StrCat(
          "embedded_runtime_save_config: unknown key '", key, "'. ", kHelp));
    }
  }
  c->enabled_ = true;
  c->cachedir_ = dir.get<std::string>();
  c->executable_path_ = (std::filesystem::path(c->cachedir_) / "application.poplar_exec").string();
  c->timeout_us_ = timeout.get<int64_t>();
  c->batch_size_ = options.batch_size;
  c->batch_per_step_ = options.batch_per_step == 0 ? 1 : options.batch_per_step;
  if (c->batch_per_step_ > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_per_step ", c->batch_per_step_, " is too large for the application's loop (at "
        "most ", std::numeric_limits<int>::max(), ")"));
  }
  return c;
}

absl::Status LoopRepeatWrapper::Apply(GraphDef* graph, SignatureDef* signature) {
  if (!enabled_) return absl::OkStatus();
  RETURN_IF_ERROR(CheckIpuPartIsOneBlock(*graph, "embedded_runtime_save_config"));
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::FromGraphDef(*graph));
  ASSIGN_OR_RETURN(IpuPartInterface interface, FindIpuPartInterface(*g, *signature));
  ASSIGN_OR_RETURN(ApplicationExecutableProto exe,
                   CompileIpuPart(*g, interface, batch_size_, batch_per_step_));
  for (const char* name : {kRuntimeNode, kCallNode}) {
    if (g->FindNode(name) != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "embedded_runtime_save_config: the converted graph calls the application from a node "
          "named '", name, "', but the graph has a node of that name; rename it"));
    }
  }
  std::error_code error;
  std::filesystem::create_directories(cachedir_, error);
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat(
        "embedded_runtime_exec_cachedir '", cachedir_, "' cannot be created: ", error.message()));
  }
  RETURN_IF_ERROR(WriteApplicationExecutable(exe, executable_path_));
  // Named after what was converted, so converting again gives the same
  // graph (the program's own node names count compiles in the process).
  ASSIGN_OR_RETURN(std::string md5,
                   Md5Hex(absl::StrCat(DeterministicBytes(*graph), "|", executable_path_, "|",
                                       batch_size_, "|", batch_per_step_)));
  const std::string engine = absl::StrCat("application-", md5.substr(0, 16));

  std::map<std::string, int> output_index;  // IPU tensor -> the call's output
  for (size_t k = 0; k < interface.outputs.size(); ++k) output_index[interface.outputs[k]] = k;
  const ApplicationSignature& sig = exe.embedded_runtime_config().signature();

  GraphDef out;
  *out.mutable_versions() = graph->versions();
  for (const NodeDef& n : graph->node()) {
    const Node* node = g->FindNode(n.name());
    if (InIpuPart(*node)) continue;
    NodeDef* copy = out.add_node();
    *copy = n;
    for (std::string& input : *copy->mutable_input()) {
      const InputRef ref = ParseInput(input);
      if (!InIpuPart(*g->FindNode(ref.node))) continue;
      input = ref.control ? absl::StrCat("^", kCallNode)
                          : InputString(kCallNode, output_index.at(TensorName(ref.node, ref.index)));
    }
  }
  NodeDef* runtime = out.add_node();
  runtime->set_name(kRuntimeNode);
  runtime->set_op("ApplicationRuntime");
  (*runtime->mutable_attr())["input_types"] = MakeAttrValue(std::vector<DataType>{});
  (*runtime->mutable_attr())["filename"] = MakeAttrValue(executable_path_);
  (*runtime->mutable_attr())["engine_name"] = MakeAttrValue(engine);
  (*runtime->mutable_attr())["timeout_us"] = MakeAttrValue(timeout_us_);
  NodeDef* call = out.add_node();
  call->set_name(kCallNode);
  call->set_op("ApplicationCall");
  std::vector<DataType> in_types, out_types;
  std::vector<TensorShape> out_shapes;
  for (const ApplicationTensorInfo& info : sig.streamed_inputs()) {
    call->add_input(InputString(ParseInput(info.name()).node, ParseInput(info.name()).index));
    in_types.push_back(info.dtype());
  }
  call->add_input(kRuntimeNode);
  for (const ApplicationTensorInfo& info : sig.streamed_outputs()) {
    out_types.push_back(info.dtype());
    ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(info.shape()));
    out_shapes.push_back(shape);
  }
  (*call->mutable_attr())["infeed_types"] = MakeAttrValue(in_types);
  (*call->mutable_attr())["outfeed_types"] = MakeAttrValue(out_types);
  (*call->mutable_attr())["engine_name"] = MakeAttrValue(engine);
  (*call->mutable_attr())["_output_shapes"] = MakeAttrValue(out_shapes);

  // Signature outputs computed on the IPU: an Identity named after the node.
  SignatureDef new_sig = *signature;
  std::map<std::string, std::string> identity_of;  // tensor -> its Identity's name
  for (auto& [key, info] : *new_sig.mutable_outputs()) {
    auto k = output_index.find(info.name());
    if (k == output_index.end()) continue;  // the CPU part computes it
    const InputRef ref = ParseInput(info.name());
    const std::string name =
        ref.index == 0 ? ref.node : absl::StrCat(ref.node, "/output_", ref.index);
    if (identity_of.emplace(info.name(), name).second) {
      NodeDef* identity = out.add_node();
      identity->set_name(name);
      identity->set_op("Identity");
      identity->add_input(InputString(kCallNode, k->second));
      (*identity->mutable_attr())["T"] = MakeAttrValue(sig.streamed_outputs(k->second).dtype());
    }
    info.set_name(TensorName(name, 0));
  }
  *graph = std::move(out);
  *signature = std::move(new_sig);
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
