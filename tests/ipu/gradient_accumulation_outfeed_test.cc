// An outfeed in a loop that trains with gradient accumulation sends one
// record per iteration, each that mini-batch's values, whether or not its
// enqueue has a control dependency on the op minimize returns (the Keras
// pattern: report a step's loss once the step is done). The expected values
// are computed here on the host, mini-batch by mini-batch.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/gradient_accumulation_optimizer.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using GradientAccumulationOutfeedTest = testing::IpuTest;

constexpr int kRows = 16;  // 8 mini-batches of 2 rows of 3 features
constexpr int kBatch = 2;
constexpr int kIterations = kRows / kBatch;
constexpr float kLearningRate = 0.25f;

float X(int row, int k) { return 0.1f * ((row * 3 + k) % 7) - 0.3f + 0.05f * k; }
float Y(int row) { return 0.2f * (row % 5) - 0.4f; }
const float kW0[3] = {0.3f, -0.2f, 0.1f};

// What the enqueue waits for (a control dependency).
enum class Wait { kNothing, kMinimize, kBodyOp };

struct Run {
  absl::Status status;
  std::vector<float> losses;  // the outfeed's records
  std::vector<float> w;       // after the run
};

// loss = mean((x w - y)^2) of each mini-batch, outfed every iteration;
// SGD, through GradientAccumulationOptimizerV2 (MEAN) when accumulate > 0.
Run Train(int accumulate, Wait wait) {
  static int runs = 0;  // feed names are process-wide
  const std::string tag = std::to_string(runs++);
  Run r;
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  r.status = cfg.configure_ipu_system();
  if (!r.status.ok()) return r;
  std::vector<float> x, y;
  for (int i = 0; i < kRows; ++i) {
    for (int k = 0; k < 3; ++k) x.push_back(X(i, k));
    y.push_back(Y(i));
  }
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  data::Dataset rows = *data::Dataset::FromTensorSlices(
      {*Tensor::FromValues<float>(x, TensorShape({kRows, 3})),
       *Tensor::FromValues<float>(y, TensorShape({kRows, 1}))});
  auto infeed = ipu::IPUInfeedQueue::Create(rows.Batch(kBatch, true), "gao_rows_" + tag);
  if (!infeed.ok()) {
    r.status = infeed.status();
    return r;
  }
  ipu::IPUOutfeedQueue losses("gao_losses_" + tag);
  Variable w = *get_variable(ipu, "w", {3, 1}, DT_FLOAT,
                             initializers::Value(*Tensor::FromValues<float>(
                                 {kW0[0], kW0[1], kW0[2]}, TensorShape({3, 1}))));
  Variable seen = *get_variable(ipu, "seen", {}, DT_FLOAT, initializers::Zeros());
  train::GradientDescentOptimizer sgd(kLearningRate);
  train::GradientAccumulationOptimizerV2 ga(sgd, accumulate,
                                            train::GradientAccumulationReductionMethod::MEAN);
  train::Optimizer& opt = accumulate > 0 ? static_cast<train::Optimizer&>(ga) : sgd;
  auto loop = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, kIterations,
            [&](const Scope& b, const std::vector<Output>&,
                const std::vector<Output>& in) -> ipu::ComputationOutputs {
              Output pred = ops::MatMul(b, in[0], w.value(b));
              Output loss = ops::Mean(b, ops::Square(b, ops::Sub(b, pred, in[1])), {0, 1});
              auto step = opt.minimize(b, loss);
              if (!step.ok()) {
                b.UpdateStatus(step.status());
                return std::vector<Output>{};
              }
              Operation counted = seen.assign_add(b, 1.f);
              std::vector<Operation> deps;
              if (wait == Wait::kMinimize) deps = {*step};
              if (wait == Wait::kBodyOp) deps = {counted};
              Operation enqueued = losses.enqueue(b.WithControlDependencies(deps), {loss});
              return ipu::ComputationOutputs({*step, counted, enqueued});
            },
            {}, &*infeed);
        if (!out.ok()) s.UpdateStatus(out.status());
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  if (!loop.ok()) {
    r.status = loop.status();
    return r;
  }
  std::vector<Output> dequeued = losses.dequeue(root);
  ClientSession session(root);
  r.status = session.Run({}, {}, {global_variables_initializer(root), infeed->initializer(root)},
                         nullptr);
  if (r.status.ok()) r.status = session.Run({}, {}, {(*loop)[0].op()}, nullptr);
  if (!r.status.ok()) return r;
  std::vector<Tensor> out;
  r.status = session.Run({dequeued[0], w.value(root)}, &out);
  if (!r.status.ok()) return r;
  r.losses.assign(out[0].data<float>(), out[0].data<float>() + out[0].NumElements());
  r.w.assign(out[1].data<float>(), out[1].data<float>() + out[1].NumElements());
  return r;
}

// The same training on the host: each mini-batch's loss with the weights of
// its time, and the update every `accumulate` mini-batches (1: plain SGD).
Run Expected(int accumulate) {
  Run r;
  float w[3] = {kW0[0], kW0[1], kW0[2]};
  float sum[3] = {0, 0, 0};
  for (int i = 0; i < kIterations; ++i) {
    float loss = 0, grad[3] = {0, 0, 0};
    for (int row = i * kBatch; row < (i + 1) * kBatch; ++row) {
      const float err = X(row, 0) * w[0] + X(row, 1) * w[1] + X(row, 2) * w[2] - Y(row);
      loss += err * err / kBatch;
      for (int k = 0; k < 3; ++k) grad[k] += 2 * err * X(row, k) / kBatch;
    }
    r.losses.push_back(loss);
    for (int k = 0; k < 3; ++k) sum[k] += grad[k];
    if ((i + 1) % accumulate == 0) {
      for (int k = 0; k < 3; ++k) {
        w[k] -= kLearningRate * sum[k] / accumulate;
        sum[k] = 0;
      }
    }
  }
  r.w.assign(w, w + 3);
  return r;
}

void ExpectTrainedLike(const Run& run, const Run& expected) {
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.losses.size(), expected.losses.size()) << "one record per mini-batch";
  for (size_t i = 0; i < run.losses.size(); ++i) {
    EXPECT_NEAR(run.losses[i], expected.losses[i], 1e-6) << "mini-batch " << i;
  }
  ASSERT_EQ(run.w.size(), expected.w.size());
  for (size_t k = 0; k < run.w.size(); ++k) EXPECT_NEAR(run.w[k], expected.w[k], 1e-6);
}

TEST_F(GradientAccumulationOutfeedTest, LossesWithoutAControlDependency) {
  ExpectTrainedLike(Train(2, Wait::kNothing), Expected(2));
}

// The Keras pattern: the enqueue waits for the (accumulated) update.
TEST_F(GradientAccumulationOutfeedTest, LossesAfterTheAccumulatedUpdate) {
  ExpectTrainedLike(Train(2, Wait::kMinimize), Expected(2));
}

TEST_F(GradientAccumulationOutfeedTest, LossesAfterAnotherBodyOp) {
  ExpectTrainedLike(Train(2, Wait::kBodyOp), Expected(2));
}

TEST_F(GradientAccumulationOutfeedTest, LossesAfterAPlainOptimizersUpdate) {
  ExpectTrainedLike(Train(0, Wait::kMinimize), Expected(1));
}

}  // namespace
}  // namespace tensorflow_ipu
