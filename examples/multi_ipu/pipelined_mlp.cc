#include "examples/multi_ipu/pipelined_mlp.h"

#include <cmath>

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

using ipu::pipelining_ops::ComputationalStage;
using ipu::pipelining_ops::OptimizerFunctionOutput;

constexpr int kFeatures = 256, kOutputs = 10;

// Deterministic rows: features in [-1, 1], targets a fixed function of them.
absl::StatusOr<data::Dataset> Rows(int n) {
  std::vector<float> x(n * kFeatures), y(n * kOutputs);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < kFeatures; ++j) x[i * kFeatures + j] = std::sin(0.37f * i + 0.11f * j);
    for (int k = 0; k < kOutputs; ++k) {
      y[i * kOutputs + k] = std::tanh(x[i * kFeatures + k] - 0.5f * x[i * kFeatures + 3 * k]);
    }
  }
  ASSIGN_OR_RETURN(Tensor xs, Tensor::FromValues<float>(x, TensorShape({n, kFeatures})));
  ASSIGN_OR_RETURN(Tensor ys, Tensor::FromValues<float>(y, TensorShape({n, kOutputs})));
  return data::Dataset::FromTensorSlices({xs, ys});
}

Initializer Weights(int rows, int cols) {
  std::vector<float> v(rows * cols);
  const float scale = 1.f / std::sqrt(static_cast<float>(rows));
  for (int i = 0; i < rows * cols; ++i) v[i] = scale * std::sin(1.3f * i + 0.7f);
  return initializers::Value(*Tensor::FromValues<float>(v, TensorShape({rows, cols})));
}

}  // namespace

absl::StatusOr<PipelinedMlpRun> TrainPipelinedMlp(const PipelinedMlpConfig& c) {
  const int stages = c.pipelined ? 2 : 1;
  if (c.micro_batch % c.replicas != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a micro-batch of ", c.micro_batch, " rows does not split over ", c.replicas,
        " replicas"));
  }
  ipu::IpuSystem::Get().Reset();
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = stages * c.replicas;
  cfg.optimizations.maximum_cross_replica_sum_buffer_size = c.cross_replica_sum_buffer;
  RETURN_IF_ERROR(cfg.configure_ipu_system());

  static int run = 0;  // feed names are process-wide
  const std::string tag = absl::StrCat(run++);
  const int micro_batches = c.accumulation * c.repeat;
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  ASSIGN_OR_RETURN(data::Dataset rows, Rows(c.micro_batch * micro_batches));
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed,
                   ipu::IPUInfeedQueue::Create(
                       rows.Batch(c.micro_batch / c.replicas, true).Repeat(), "mlp_rows_" + tag));
  ipu::IPUOutfeedQueue losses("mlp_loss_" + tag);
  // Each stage's variables live on its IPU.
  VariableScope vs0(ipu::scopes::ipu_shard(ipu, 0), "stage0");
  VariableScope vs1(ipu::scopes::ipu_shard(ipu, stages - 1), "stage1");
  // Stage 0: features -> hidden -> hidden -> cut; stage 1: cut -> hidden
  // -> hidden -> outputs. A narrow cut keeps the activations that cross
  // the IPU-Link small.
  const int h = c.hidden, cut = c.cut;
  ASSIGN_OR_RETURN(Variable w1, vs0.get_variable("w1", {kFeatures, h}, DT_FLOAT,
                                                 Weights(kFeatures, h)));
  ASSIGN_OR_RETURN(Variable w2, vs0.get_variable("w2", {h, h}, DT_FLOAT, Weights(h, h)));
  ASSIGN_OR_RETURN(Variable w3, vs0.get_variable("w3", {h, cut}, DT_FLOAT, Weights(h, cut)));
  ASSIGN_OR_RETURN(Variable w4, vs1.get_variable("w4", {cut, h}, DT_FLOAT, Weights(cut, h)));
  ASSIGN_OR_RETURN(Variable w5, vs1.get_variable("w5", {h, h}, DT_FLOAT, Weights(h, h)));
  ASSIGN_OR_RETURN(Variable w6, vs1.get_variable("w6", {h, kOutputs}, DT_FLOAT,
                                                 Weights(h, kOutputs)));
  auto dense = [](const Scope& s, Output x, const Variable& w) {
    return ops::Relu(s, ops::MatMul(s, x, w.value(s)));
  };
  ComputationalStage stage0 = [&](const Scope& s, const std::vector<Output>& in) {
    Output x = dense(s, dense(s, dense(s, in[0], w1), w2), w3);
    return std::vector<Output>{x, in[1]};
  };
  ComputationalStage stage1 = [&](const Scope& s, const std::vector<Output>& in) {
    Output x = dense(s, dense(s, in[0], w4), w5);
    Output err = ops::Sub(s, ops::MatMul(s, x, w6.value(s)), in[1]);
    return std::vector<Output>{ops::Mean(s, ops::Square(s, err), {0, 1})};
  };
  train::GradientDescentOptimizer sgd(0.05);
  train::CrossReplicaOptimizer cross(sgd);
  train::Optimizer& opt = c.replicas > 1 ? static_cast<train::Optimizer&>(cross) : sgd;
  const auto mean = train::GradientAccumulationReductionMethod::MEAN;
  ASSIGN_OR_RETURN(
      std::vector<Output> program,
      ipu::ipu_compiler::compile(
          ipu, [&](const Scope& s, const std::vector<Output>&) -> std::vector<Output> {
            if (c.pipelined) {
              ipu::pipelining_ops::PipelineOptions options;
              options.reduction_method = mean;
              absl::StatusOr<Operation> op = ipu::pipelining_ops::pipeline(
                  s, {stage0, stage1}, c.accumulation, c.repeat, {}, &infeed, &losses,
                  [&](const Scope&, const std::vector<Output>& out) {
                    return OptimizerFunctionOutput(opt, out[0]);
                  },
                  {0, 1}, c.schedule, options);
              if (!op.ok()) s.UpdateStatus(op.status());
              return op.ok() ? std::vector<Output>{Output(*op, 0)} : std::vector<Output>{};
            }
            train::GradientAccumulationOptimizerV2 accumulate(opt, c.accumulation, mean);
            absl::StatusOr<std::vector<Output>> out = ipu::loops::repeat(
                s, micro_batches,
                [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>& in) {
                  Output loss = stage1(b, stage0(b, in))[0];
                  absl::StatusOr<Operation> step = accumulate.minimize(b, loss);
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
  RunMetadata metadata;
  std::vector<Tensor> out;
  // The first run compiles and loads; the measured run is the second.
  RETURN_IF_ERROR(session.Run(RunOptions(), {}, {}, {program[0].op()}, &out, &metadata));
  RETURN_IF_ERROR(session.Run(RunOptions(), {}, {}, {program[0].op()}, &out, &metadata));
  RETURN_IF_ERROR(session.Run({dequeued[0], w1.value(root)}, &out));

  PipelinedMlpRun r;
  r.samples = c.micro_batch * micro_batches;
  // Both runs' losses were dequeued, [2 x micro_batches, (R)]: keep the
  // second run's, averaged over the replicas.
  const float* l = out[0].data<float>();
  for (int i = micro_batches; i < 2 * micro_batches; ++i) {
    float sum = 0;
    for (int k = 0; k < c.replicas; ++k) sum += l[i * c.replicas + k];
    r.losses.push_back(sum / c.replicas);
  }
  r.w1.assign(out[1].data<float>(), out[1].data<float>() + out[1].NumElements());
  for (const IpuClusterProfile& p : metadata.ipu_profile.clusters) r.seconds += p.seconds;
  return r;
}

}  // namespace examples
}  // namespace tensorflow_ipu
