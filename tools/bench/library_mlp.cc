#include "tools/bench/library_mlp.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/gradients/gradients.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"

namespace tfipu_bench {

namespace tfipu = tensorflow_ipu;
namespace ops = tensorflow_ipu::ops;

tfipu::Tensor FloatMatrix(const float* data, int64_t rows, int64_t cols) {
  tfipu::Tensor t(tfipu::DT_FLOAT, tfipu::TensorShape({rows, cols}));
  std::memcpy(t.data<float>(), data, sizeof(float) * rows * cols);
  return t;
}

tfipu::Tensor Int32Vector(const int32_t* data, int64_t n) {
  tfipu::Tensor t(tfipu::DT_INT32, tfipu::TensorShape({n}));
  std::memcpy(t.data<int32_t>(), data, sizeof(int32_t) * n);
  return t;
}

absl::StatusOr<MlpGraph> BuildMlpGraph(const tfipu::Scope& root,
                                       const tfipu::Scope& compute,
                                       const MlpWeights& weights,
                                       const MlpGraphOptions& options) {
  if (weights.layers.empty()) {
    return absl::InvalidArgumentError("the MLP has no layers");
  }
  const tfipu::Scope host = root.WithDevice("cpu");
  const int64_t batch = options.batch;
  MlpGraph g;
  g.images = ops::Placeholder(
      host.WithOpName("images"), tfipu::DT_FLOAT,
      ops::Placeholder::Shape(tfipu::TensorShape({batch, weights.layers[0].in})));
  tfipu::Output h = g.images;
  for (size_t k = 0; k < weights.layers.size(); ++k) {
    const DenseLayer& l = weights.layers[k];
    tfipu::Tensor w = FloatMatrix(l.w.data(), l.in, l.out);
    tfipu::Tensor b(tfipu::DT_FLOAT, tfipu::TensorShape({l.out}));
    std::memcpy(b.data<float>(), l.b.data(), sizeof(float) * l.out);
    const std::string wn = absl::StrCat("w", k + 1), bn = absl::StrCat("b", k + 1);
    tfipu::Output wo, bo;
    if (options.params == ParamSource::kConst) {
      wo = ops::Const(compute.WithOpName(wn), w);
      bo = ops::Const(compute.WithOpName(bn), b);
    } else {
      wo = ops::Placeholder(host.WithOpName(wn), tfipu::DT_FLOAT,
                            ops::Placeholder::Shape(w.shape()));
      bo = ops::Placeholder(host.WithOpName(bn), tfipu::DT_FLOAT,
                            ops::Placeholder::Shape(b.shape()));
    }
    g.params.push_back(wo);
    g.params.push_back(bo);
    g.param_values.push_back(w);
    g.param_values.push_back(b);
    const tfipu::Scope layer = compute.NewSubScope(absl::StrCat("dense", k + 1));
    tfipu::Output product = ops::MatMul(layer, h, wo);
    h = options.ipu_gradient_workarounds ? tfipu::Output(ops::Add(layer, product, bo))
                                         : tfipu::Output(ops::BiasAdd(layer, product, bo));
    if (k + 1 < weights.layers.size()) h = ops::Relu(layer, h);
  }
  g.logits = h;
  if (options.loss || options.gradients) {
    g.labels = ops::Placeholder(host.WithOpName("labels"), tfipu::DT_INT32,
                                ops::Placeholder::Shape(tfipu::TensorShape({batch})));
    const tfipu::Scope loss_scope = compute.NewSubScope("loss");
    auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(loss_scope, g.logits, g.labels);
    if (options.ipu_gradient_workarounds) {
      g.loss = ops::Sum(loss_scope,
                        ops::Mul(loss_scope, xent.loss, ops::Const(loss_scope, 1.0f / batch)),
                        ops::Const(loss_scope, 0));
    } else {
      g.loss = ops::Mean(loss_scope, xent.loss, ops::Const(loss_scope, 0));
    }
  }
  if (options.gradients) {
    absl::Status s = tfipu::AddSymbolicGradients(compute.NewSubScope("gradients"),
                                                 {g.loss}, g.params, &g.grads);
    if (!s.ok()) return s;
  }
  if (!root.ok()) return root.status();
  return g;
}

tfipu::ClientSession::FeedType ParamFeeds(const MlpGraph& g) {
  tfipu::ClientSession::FeedType feeds;
  for (size_t k = 0; k < g.params.size(); ++k) {
    if (g.params[k].node()->op() != "Placeholder") continue;
    feeds.emplace(g.params[k], g.param_values[k]);
  }
  return feeds;
}

}  // namespace tfipu_bench
