#include "examples/multi_ipu/data_parallel.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/cross_replica_optimizer.h"
#include "tensorflow_ipu/train/gradient_accumulation_optimizer.h"
#include "tensorflow_ipu/train/gradient_descent.h"

namespace tensorflow_ipu {
namespace examples {
namespace {

// Deterministic rows: features in [-1, 1), targets a fixed function of them
// (outputs <= features / 2).
absl::StatusOr<data::Dataset> Rows(int n, int features, int outputs) {
  std::vector<float> x(n * features), y(n * outputs);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < features; ++j) {
      x[i * features + j] = std::sin(0.37f * i + 0.11f * j);
    }
    for (int k = 0; k < outputs; ++k) {
      y[i * outputs + k] = std::tanh(x[i * features + k] + 0.5f * x[i * features + 2 * k]);
    }
  }
  ASSIGN_OR_RETURN(Tensor xs, Tensor::FromValues<float>(x, TensorShape({n, features})));
  ASSIGN_OR_RETURN(Tensor ys, Tensor::FromValues<float>(y, TensorShape({n, outputs})));
  return data::Dataset::FromTensorSlices({xs, ys});
}

// Deterministic weights of scale 0.1, shrunk for layers wider than 128
// inputs so that the activations stay of the same order.
Initializer Weights(int rows, int cols) {
  const float scale = 0.1f * std::min(1.f, std::sqrt(128.f / rows));
  std::vector<float> v(rows * cols);
  for (int i = 0; i < rows * cols; ++i) v[i] = scale * std::sin(1.3f * i + 0.7f);
  return initializers::Value(*Tensor::FromValues<float>(v, TensorShape({rows, cols})));
}

}  // namespace

absl::StatusOr<DataParallelRun> TrainDataParallel(int replicas, int global_batch, int steps,
                                                  int accumulate, const DataParallelShare& share,
                                                  const std::vector<int>& layers) {
  if (layers.size() < 2 || layers.back() > layers.front() / 2 ||
      *std::min_element(layers.begin(), layers.end()) < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an MLP of ", layers.size(), " sizes: give inputs, hidden sizes and outputs, each at "
        "least 1, with at most half as many outputs as inputs"));
  }
  const int total_replicas = replicas * share.instances;
  if (replicas < 1 || share.instances < 1 || global_batch % total_replicas != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a global batch of ", global_batch, " does not split over ", total_replicas,
        " replicas"));
  }
  ipu::IpuSystem::Get().Reset();
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = replicas;
  if (share.configure) RETURN_IF_ERROR(share.configure(cfg));
  RETURN_IF_ERROR(cfg.configure_ipu_system());

  static int run = 0;  // feed names are process-wide
  const std::string tag = absl::StrCat(replicas, "_", run++);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  ASSIGN_OR_RETURN(data::Dataset rows, Rows(global_batch * steps, layers.front(), layers.back()));
  data::Dataset batches = rows.Batch(global_batch / total_replicas, true);
  if (share.instances > 1) batches = batches.Shard(share.instances, share.index);
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed,
                   ipu::IPUInfeedQueue::Create(batches, "rows_" + tag));
  ipu::IPUOutfeedQueue losses("loss_" + tag);
  VariableScope vs(ipu, "mlp");
  std::vector<Variable> weights;
  for (size_t k = 0; k + 1 < layers.size(); ++k) {
    ASSIGN_OR_RETURN(Variable w, vs.get_variable(absl::StrCat("w", k + 1),
                                                 {layers[k], layers[k + 1]}, DT_FLOAT,
                                                 Weights(layers[k], layers[k + 1])));
    weights.push_back(w);
  }
  train::GradientDescentOptimizer sgd(0.05);
  train::CrossReplicaOptimizer cross(sgd);
  train::GradientAccumulationOptimizerV2 accumulating(
      cross, accumulate, train::GradientAccumulationReductionMethod::MEAN);
  train::Optimizer& opt =
      accumulate > 0 ? static_cast<train::Optimizer&>(accumulating) : cross;
  ASSIGN_OR_RETURN(
      std::vector<Output> loop,
      ipu::ipu_compiler::compile(
          ipu, [&](const Scope& s, const std::vector<Output>&) {
            absl::StatusOr<std::vector<Output>> out = ipu::loops::repeat(
                s, steps,
                [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>& in) {
                  Output h = in[0];
                  for (size_t k = 0; k + 1 < weights.size(); ++k) {
                    h = ops::Relu(b, ops::MatMul(b, h, weights[k].value(b)));
                  }
                  Output err = ops::Sub(b, ops::MatMul(b, h, weights.back().value(b)), in[1]);
                  Output loss = ops::Mean(b, ops::Square(b, err), {0, 1});
                  absl::StatusOr<Operation> step = opt.minimize(b, loss);
                  if (!step.ok()) b.UpdateStatus(step.status());
                  losses.enqueue(b, {loss});
                  return std::vector<Output>{};
                },
                {}, &infeed);
            if (!out.ok()) s.UpdateStatus(out.status());
            return out.ok() ? *out : std::vector<Output>{};
          }, {}));
  std::vector<Output> dequeued = losses.dequeue(root);
  Operation init = global_variables_initializer(root);
  RETURN_IF_ERROR(root.status());

  ClientSession session(root);
  RETURN_IF_ERROR(session.Run({}, {}, {init, infeed.initializer(root)}, nullptr));
  if (share.after_init) RETURN_IF_ERROR(share.after_init(root, session, weights));
  RunMetadata metadata;
  std::vector<Tensor> out;
  // A first run compiles and loads; the measured run is the second.
  RETURN_IF_ERROR(session.Run(RunOptions(), {}, {}, {loop[0].op()}, &out, &metadata));
  RETURN_IF_ERROR(session.Run({}, {}, {infeed.initializer(root)}, nullptr));
  RETURN_IF_ERROR(session.Run(RunOptions(), {}, {}, {loop[0].op()}, &out, &metadata));
  RETURN_IF_ERROR(session.Run({dequeued[0], weights[0].value(root)}, &out));

  DataParallelRun r;
  r.replicas = replicas;
  r.samples = global_batch * steps;
  // Both runs' losses were dequeued: keep the second's, [steps, (R)].
  const Tensor& l = out[0];
  const int per_step = replicas;
  for (int i = steps; i < 2 * steps; ++i) {
    float sum = 0;
    for (int k = 0; k < per_step; ++k) sum += l.data<float>()[i * per_step + k];
    r.losses.push_back(sum / per_step);
  }
  r.w1.assign(out[1].data<float>(), out[1].data<float>() + out[1].NumElements());
  for (const IpuClusterProfile& c : metadata.ipu_profile.clusters) {
    r.seconds += c.seconds;
    r.all_reduce_bytes += c.inter_ipu_bytes;
  }
  return r;
}

}  // namespace examples
}  // namespace tensorflow_ipu
