// The benchmarks' MLP as a graph of this library, built with the client API
// the way a user would write it: placeholders for the images and labels on
// the host, the layers on the `compute` scope (the host's, or one under
// ipu::scopes::ipu_scope), the weights as constants on that scope or as fed
// placeholders on the host.
//
//   Scope root = Scope::NewRootScope();
//   Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
//   ASSIGN_OR_RETURN(MlpGraph g, BuildMlpGraph(root, ipu, weights, options));
//   ClientSession session(root);
//   session.Run({{g.images, batch_tensor}}, {g.logits}, &out);
#ifndef TOOLS_BENCH_LIBRARY_MLP_H_
#define TOOLS_BENCH_LIBRARY_MLP_H_

#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tools/bench/mlp_weights.h"

namespace tfipu_bench {

enum class ParamSource {
  kConst,  // ops::Const on the compute scope (resident on an IPU)
  kFed,    // float placeholders on the host, fed every run
};

struct MlpGraphOptions {
  int batch = 32;
  ParamSource params = ParamSource::kConst;
  // false: the graph tf.layers.dense and tf.reduce_mean build (BiasAdd,
  // Mean). true: the same values computed with ops whose gradients run on
  // the IPU today: Add for the biases (BiasAdd's gradient op, BiasAddGrad,
  // has no IPU lowering) and Sum * (1/batch) for the mean loss (Mean's
  // gradient makes a double constant, which the IPU cannot hold).
  bool ipu_gradient_workarounds = false;
  // Add the mean sparse softmax cross-entropy ("loss") over int32 labels.
  bool loss = false;
  // Add d loss / d params (symbolic gradients); implies `loss`.
  bool gradients = false;
};

struct MlpGraph {
  tensorflow_ipu::Output images;  // float [batch, in] placeholder, on the host
  tensorflow_ipu::Output labels;  // int32 [batch] placeholder (when loss)
  // w1, b1, w2, b2, ... as Consts or placeholders.
  std::vector<tensorflow_ipu::Output> params;
  // Their values (what to feed when fed), same order.
  std::vector<tensorflow_ipu::Tensor> param_values;
  tensorflow_ipu::Output logits;  // [batch, out]
  tensorflow_ipu::Output loss;    // scalar (when loss)
  std::vector<tensorflow_ipu::Output> grads;  // same order as params
};

// The scope's first error, if building failed.
absl::StatusOr<MlpGraph> BuildMlpGraph(const tensorflow_ipu::Scope& root,
                                       const tensorflow_ipu::Scope& compute,
                                       const MlpWeights& weights,
                                       const MlpGraphOptions& options);

// A float tensor [rows, cols] holding a copy of `data` (row-major).
tensorflow_ipu::Tensor FloatMatrix(const float* data, int64_t rows, int64_t cols);
// An int32 vector holding a copy of `data`.
tensorflow_ipu::Tensor Int32Vector(const int32_t* data, int64_t n);

// The feeds of the weights when they are fed (empty for constants).
tensorflow_ipu::ClientSession::FeedType ParamFeeds(const MlpGraph& g);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_LIBRARY_MLP_H_
