#include "tools/ipu_saved_model_cli/convert/pipeline/testing/dense_model.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/session.h"
#include "tensorflow_ipu/saved_model/builder.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace pipeline_testing {

absl::Status WriteDenseModel(const std::string& export_dir, const std::vector<int>& widths) {
  if (widths.size() < 2) return absl::InvalidArgumentError("a dense model needs two widths");
  Scope root = Scope::NewRootScope();
  Output h = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::Placeholder::Shape(TensorShape({-1, widths[0]})));
  for (size_t layer = 1; layer < widths.size(); ++layer) {
    const int in = widths[layer - 1];
    const int out = widths[layer];
    // Small weights of both signs, so that activations neither vanish
    // nor grow over many layers.
    std::vector<float> kernel(static_cast<size_t>(in) * out);
    for (size_t i = 0; i < kernel.size(); ++i) {
      kernel[i] = static_cast<float>(static_cast<int>((i * 7 + layer * 3) % 13) - 6) / (2.f * in);
    }
    std::vector<float> bias(out);
    for (int j = 0; j < out; ++j) bias[j] = static_cast<float>((j + layer) % 5) * 0.1f - 0.2f;
    const std::string name = absl::StrCat("dense_", layer - 1);
    auto w = ops::Const(root.WithOpName(name + "/kernel"),
                        Tensor::FromVector<float>(kernel, TensorShape({in, out})));
    auto b = ops::Const(root.WithOpName(name + "/bias"),
                        Tensor::FromVector<float>(bias, TensorShape({out})));
    h = ops::MatMul(root.WithOpName(name + "/MatMul"), h, w);
    h = ops::BiasAdd(root.WithOpName(name + "/BiasAdd"), h, b);
    if (layer + 1 < widths.size()) h = ops::Relu(root.WithOpName(name + "/Relu"), h);
  }
  ops::Identity(root.WithOpName("y"), h);
  ASSIGN_OR_RETURN(GraphDef graph, root.ToGraphDef());
  std::unique_ptr<Session> session = NewSession();
  RETURN_IF_ERROR(session->Create(graph));
  ASSIGN_OR_RETURN(SignatureDef signature, MakeSignatureDef(graph, {{"x", "x:0"}}, {{"y", "y:0"}}));
  SavedModelBuilder builder(export_dir);
  RETURN_IF_ERROR(builder.AddMetaGraphAndVariables(session.get(), graph, {"serve"},
                                                   {{"serving_default", signature}}));
  return builder.Save();
}

}  // namespace pipeline_testing
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
