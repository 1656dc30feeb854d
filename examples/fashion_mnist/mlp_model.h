// The example's model: a multi-layer perceptron 784-256-128-10 with ReLU,
// a mean softmax cross-entropy loss and plain SGD, built with the client
// API as a TF1 program would (tf.layers.dense, tf.losses.sparse_softmax_
// cross_entropy, tf.train.GradientDescentOptimizer.minimize).
//
//   Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
//   ASSIGN_OR_RETURN(MlpParams params, CreateMlpParams(ipu, /*seed=*/1));
//   // inside a compiled loop body `b`, for a batch (x, y):
//   ASSIGN_OR_RETURN(MlpStep step, BuildMlpTrainingStep(b, params, x, y,
//                                                       0.05, &global_step));
//   // step.loss: the batch's mean loss; step.train: the SGD update
#ifndef EXAMPLES_FASHION_MNIST_MLP_MODEL_H_
#define EXAMPLES_FASHION_MNIST_MLP_MODEL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/cc/variables/variable.h"

namespace tensorflow_ipu {
namespace examples {

// The layer widths, input first.
inline constexpr int kMlpWidths[] = {784, 256, 128, 10};
inline constexpr int kMlpLayers = 3;

struct MlpLayer {
  Variable kernel;  // [in, out], GlorotUniform
  Variable bias;    // [out], zeros
};

struct MlpParams {
  std::vector<MlpLayer> layers;  // kMlpLayers, input side first
};

// Creates the weights as resource variables "mlp/dense_<k>/kernel" and
// "mlp/dense_<k>/bias" (k = 1..3) on `scope`'s device, so under an
// ipu_scope they live on the IPU. Layer k's kernel is initialised with
// GlorotUniform(seed + k): the same seed gives the same weights in every
// process.
absl::StatusOr<MlpParams> CreateMlpParams(const Scope& scope, int64_t seed);

// logits [batch, 10] of float images [batch, 784]: two dense ReLU layers
// and a linear one.
Output MlpLogits(const Scope& scope, const MlpParams& params, Output images);

struct MlpStep {
  Output loss;      // float scalar: the mean cross-entropy of the batch
  Operation train;  // one SGD update of every weight, then global_step += 1
};

// The loss of a batch (labels: int32 [batch] class indices) and the
// GradientDescent step that minimises it, incrementing `global_step` (may
// be null). The first error building the graph is returned.
absl::StatusOr<MlpStep> BuildMlpTrainingStep(const Scope& scope,
                                             const MlpParams& params,
                                             Output images, Output labels,
                                             double learning_rate,
                                             const Variable* global_step);

}  // namespace examples
}  // namespace tensorflow_ipu

#endif  // EXAMPLES_FASHION_MNIST_MLP_MODEL_H_
