#include "tools/ipu_saved_model_cli/convert/pipeline/simulated_run.h"

#include <cstring>
#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/runtime/session.h"
#include "tensorflow_ipu/saved_model/loader.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/json_file.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/serving_graph.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

constexpr char kSignatureKey[] = "serving_default";

// Puts the process's IPU configuration back when the run is over, whatever
// happened.
class RestoreIpuSystem {
 public:
  RestoreIpuSystem() : previous_(ipu::IpuSystem::Get().configuration()) {}
  ~RestoreIpuSystem() {
    if (previous_.has_value()) {
      // It was accepted before; if it is refused now, detaching is the safe
      // state to leave.
      if (!previous_->configure_ipu_system().ok()) ipu::IpuSystem::Get().Reset();
    } else {
      ipu::IpuSystem::Get().Reset();
    }
  }

 private:
  std::optional<ipu::config::IPUConfig> previous_;
};

}  // namespace

absl::StatusOr<std::map<std::string, Tensor>> ZeroInputs(const GraphDef& graph,
                                                         const SignatureDef& signature,
                                                         int64_t batch_size) {
  std::map<std::string, const NodeDef*> nodes;
  for (const NodeDef& n : graph.node()) nodes[n.name()] = &n;
  std::map<std::string, Tensor> inputs;
  for (const auto& [key, info] : signature.inputs()) {
    auto it = nodes.find(InputNodeName(info.name()));
    if (it == nodes.end() || it->second->op() != "Placeholder") {
      return absl::InvalidArgumentError(absl::StrCat("signature input '", key, "' (", info.name(),
                                                     ") is not a Placeholder of the graph"));
    }
    ASSIGN_OR_RETURN(DataType dtype, GetNodeAttr<DataType>(*it->second, "dtype"));
    TensorShape shape = TensorShape::Unknown();
    if (auto s = it->second->attr().find("shape"); s != it->second->attr().end()) {
      ASSIGN_OR_RETURN(shape, TensorShape::FromProto(s->second.shape()));
    }
    if (shape.unknown_rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "signature input '", key, "' has an unknown rank; the IPU needs static shapes"));
    }
    for (int d = 0; d < shape.dims(); ++d) {
      if (shape.dim_size(d) < 0) shape.set_dim(d, batch_size);
    }
    ASSIGN_OR_RETURN(Tensor t, Tensor::Create(dtype, shape));
    if (t.TotalBytes() > 0) std::memset(t.raw_data(), 0, t.TotalBytes());
    inputs[key] = std::move(t);
  }
  return inputs;
}

absl::StatusOr<SimulatedRun> RunOnSimulator(const GraphDef& graph, const SignatureDef& signature,
                                            const SimulatedRunOptions& options,
                                            std::map<std::string, Tensor> inputs) {
  if (inputs.empty()) {
    ASSIGN_OR_RETURN(inputs, ZeroInputs(graph, signature, options.batch_size));
  }
  std::error_code ec;
  std::filesystem::remove_all(options.report_dir, ec);
  std::filesystem::create_directories(options.report_dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create the profiling directory ",
                                                    options.report_dir, ": ", ec.message()));
  }
  const std::string report_dir = std::filesystem::absolute(options.report_dir).string();
  SimulatedRun run;
  {
    RestoreIpuSystem restore;
    ipu::config::IPUConfig config;
    config.auto_select_ipus = options.num_ipus;
    config.compilation_poplar_options = {{"autoReport.all", "true"},
                                         {"autoReport.directory", report_dir}};
    if (options.allow_out_of_memory) {
      config.compilation_poplar_options["debug.allowOutOfMemory"] = "true";
    }
    RETURN_IF_ERROR(config.configure_ipu_system());
    SavedModelBundle bundle;
    *bundle.meta_graph_def.mutable_graph_def() = graph;
    (*bundle.meta_graph_def.mutable_signature_def())[kSignatureKey] = signature;
    bundle.session = NewSession();
    RETURN_IF_ERROR(bundle.session->Create(graph));
    RETURN_IF_ERROR(RunSignature(bundle, kSignatureKey, inputs, &run.outputs));
    // The session's engines write their last reports when they are destroyed
    // at the latest; they are written after every run already, but close
    // the session before reading to be sure.
    RETURN_IF_ERROR(bundle.session->Close());
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(report_dir, ec)) {
    if (entry.path().filename() == "profile.json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    ASSIGN_OR_RETURN(nlohmann::json profile,
                     ReadJsonFile(file.string(), absl::StrCat("profile ", file.string())));
    run.profiles.push_back(std::move(profile));
  }
  if (run.profiles.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the run on the simulated IPU wrote no profile into ", report_dir,
                     ": no node of the graph ran on an IPU"));
  }
  return run;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
