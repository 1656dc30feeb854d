#include "examples/fashion_mnist/mlp_model.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/initializers.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/train/gradient_descent.h"

namespace tensorflow_ipu {
namespace examples {

absl::StatusOr<MlpParams> CreateMlpParams(const Scope& scope, int64_t seed) {
  MlpParams params;
  for (int k = 1; k <= kMlpLayers; ++k) {
    VariableScope vs(scope, absl::StrCat("mlp/dense_", k));
    const int64_t in = kMlpWidths[k - 1], out = kMlpWidths[k];
    MlpLayer layer;
    ASSIGN_OR_RETURN(layer.kernel,
                     vs.get_variable("kernel", {in, out}, DT_FLOAT,
                                     initializers::GlorotUniform(seed + k)));
    ASSIGN_OR_RETURN(layer.bias, vs.get_variable("bias", {out}, DT_FLOAT,
                                                 initializers::Zeros()));
    params.layers.push_back(layer);
  }
  return params;
}

Output MlpLogits(const Scope& scope, const MlpParams& params, Output images) {
  Output h = images;
  for (size_t k = 0; k < params.layers.size(); ++k) {
    const MlpLayer& layer = params.layers[k];
    h = ops::BiasAdd(scope, ops::MatMul(scope, h, layer.kernel.value(scope)),
                     layer.bias.value(scope));
    if (k + 1 < params.layers.size()) h = ops::Relu(scope, h);
  }
  return h;
}

absl::StatusOr<MlpStep> BuildMlpTrainingStep(const Scope& scope,
                                             const MlpParams& params,
                                             Output images, Output labels,
                                             double learning_rate,
                                             const Variable* global_step) {
  Output logits = MlpLogits(scope, params, images);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(scope, logits, labels);
  MlpStep step;
  step.loss = ops::Mean(scope, xent.loss, {0});
  RETURN_IF_ERROR(scope.status());
  train::GradientDescentOptimizer optimizer(learning_rate);
  ASSIGN_OR_RETURN(step.train, optimizer.minimize(scope, step.loss, global_step));
  RETURN_IF_ERROR(scope.status());
  return step;
}

}  // namespace examples
}  // namespace tensorflow_ipu
