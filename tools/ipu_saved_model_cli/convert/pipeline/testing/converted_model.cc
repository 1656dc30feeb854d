#include "tools/ipu_saved_model_cli/convert/pipeline/testing/converted_model.h"

#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/runtime/session.h"
#include "tensorflow_ipu/saved_model/builder.h"
#include "tensorflow_ipu/saved_model/freeze.h"
#include "tensorflow_ipu/saved_model/loader.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace pipeline_testing {

absl::StatusOr<FrozenModel> FreezeForIpu(const std::string& export_dir, int64_t batch_size) {
  FreezeOptions options;
  options.batch_size = batch_size;
  SavedModelBundle frozen;
  RETURN_IF_ERROR(LoadSavedModelForIpu(SessionOptions(), RunOptions(), export_dir, {"serve"},
                                       options, &frozen));
  FrozenModel model;
  model.graph = frozen.meta_graph_def.graph_def();
  model.signature = frozen.meta_graph_def.signature_def().at(kDefaultServingSignatureDefKey);
  return model;
}

absl::Status SaveModel(const std::string& export_dir, const GraphDef& graph,
                       const SignatureDef& signature) {
  std::unique_ptr<Session> session = NewSession();
  RETURN_IF_ERROR(session->Create(graph));
  SavedModelBuilder builder(export_dir);
  RETURN_IF_ERROR(builder.AddMetaGraphAndVariables(session.get(), graph, {"serve"},
                                                   {{kDefaultServingSignatureDefKey, signature}}));
  return builder.Save();
}

absl::StatusOr<std::map<std::string, Tensor>> RunSavedModel(
    const std::string& export_dir, int num_ipus, const std::map<std::string, Tensor>& inputs) {
  ipu::IpuSystem::Get().Reset();
  if (num_ipus > 0) {
    ipu::config::IPUConfig config;
    config.auto_select_ipus = num_ipus;
    RETURN_IF_ERROR(config.configure_ipu_system());
  }
  std::map<std::string, Tensor> outputs;
  absl::Status status = [&]() -> absl::Status {
    SavedModelBundle bundle;
    RETURN_IF_ERROR(LoadSavedModel(SessionOptions(), RunOptions(), export_dir, {"serve"}, &bundle));
    return RunSignature(bundle, kDefaultServingSignatureDefKey, inputs, &outputs);
  }();
  ipu::IpuSystem::Get().Reset();
  RETURN_IF_ERROR(status);
  return outputs;
}

}  // namespace pipeline_testing
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
