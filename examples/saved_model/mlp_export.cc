#include "examples/saved_model/mlp_export.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "examples/fashion_mnist/mlp_model.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/saved_model/builder.h"

namespace tensorflow_ipu {
namespace examples {
namespace {

// Rows [begin, begin + count) of a [n, ...] tensor, copied.
absl::StatusOr<Tensor> Rows(const Tensor& t, int64_t begin, int64_t count) {
  TensorShape shape = t.shape();
  const int64_t row_elements = t.NumElements() / t.dim_size(0);
  std::vector<int64_t> dims;
  for (int i = 0; i < t.dims(); ++i) dims.push_back(i == 0 ? count : t.dim_size(i));
  ASSIGN_OR_RETURN(Tensor out, Tensor::Create(t.dtype(), TensorShape(dims)));
  const size_t row_bytes = row_elements * DataTypeSize(t.dtype());
  std::memcpy(out.raw_data(), static_cast<const char*>(t.raw_data()) + begin * row_bytes,
              count * row_bytes);
  return out;
}

}  // namespace

absl::StatusOr<MlpExportReport> ExportFashionMnistMlp(const FashionMnist& data,
                                                      const std::string& export_dir,
                                                      const MlpExportOptions& options) {
  if (options.steps < 1 || options.batch_size < 1 ||
      data.train.count() / options.batch_size < options.steps) {
    return absl::InvalidArgumentError(absl::StrCat(
        "training ", options.steps, " steps of ", options.batch_size, " images needs ",
        options.steps * options.batch_size, " training images; there are ", data.train.count()));
  }
  // The graph a TF1 program would build: placeholders, the MLP, its
  // training step, and the served output.
  Scope root = Scope::NewRootScope();
  auto image = ops::Placeholder(root.WithOpName("image"), DT_FLOAT,
                                ops::Placeholder::Shape({-1, kFashionMnistPixels}));
  auto label = ops::Placeholder(root.WithOpName("label"), DT_INT32, ops::Placeholder::Shape({-1}));
  ASSIGN_OR_RETURN(MlpParams params, CreateMlpParams(root, options.seed));
  ASSIGN_OR_RETURN(MlpStep step, BuildMlpTrainingStep(root, params, image, label,
                                                      options.learning_rate, nullptr));
  auto probabilities =
      ops::Softmax(root.WithOpName("probabilities"), MlpLogits(root, params, image));
  auto predicted = ops::ArgMax(root, probabilities, 1, ops::ArgMax::OutputType(DT_INT32));
  Operation init = global_variables_initializer(root);
  RETURN_IF_ERROR(root.status());

  ClientSession session(root);
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session.Run({}, {}, {init}, &out));
  MlpExportReport report;
  for (int64_t s = 0; s < options.steps; ++s) {
    const int64_t begin = s * options.batch_size;
    ASSIGN_OR_RETURN(Tensor x, Rows(data.train.images, begin, options.batch_size));
    ASSIGN_OR_RETURN(Tensor y, Rows(data.train.labels, begin, options.batch_size));
    RETURN_IF_ERROR(session.Run({{image, x}, {label, y}}, {step.loss}, {step.train}, &out));
    report.final_loss = out[0].data<float>()[0];
  }
  RETURN_IF_ERROR(session.Run({{image, data.test.images}}, {predicted}, &out));
  int64_t correct = 0;
  for (int64_t i = 0; i < data.test.count(); ++i) {
    correct += out[0].data<int32_t>()[i] == data.test.labels.data<int32_t>()[i];
  }
  report.test_accuracy = data.test.count() ? static_cast<double>(correct) / data.test.count() : 0;

  ASSIGN_OR_RETURN(GraphDef graph, root.ToGraphDef());
  ASSIGN_OR_RETURN(SignatureDef signature,
                   MakeSignatureDef(graph, {{"image", "image:0"}},
                                    {{"probabilities", "probabilities:0"}}));
  SavedModelBuilder builder(export_dir);
  RETURN_IF_ERROR(builder.AddMetaGraphAndVariables(session.session(), graph, {"serve"},
                                                   {{"serving_default", signature}}));
  RETURN_IF_ERROR(builder.Save());
  return report;
}

}  // namespace examples
}  // namespace tensorflow_ipu
