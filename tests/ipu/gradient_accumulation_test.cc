// Gradient accumulation through the session: GradientAccumulationOptimizerV2
// in an on-device loop updates the weights once every N mini-batches, and
// that update equals one step on the N mini-batches together; with
// replication the all-reduce runs once per update. The vendor's verifier
// errors name their numbers.
#include <cmath>
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
#include "tensorflow_ipu/train/cross_replica_optimizer.h"
#include "tensorflow_ipu/train/global_step.h"
#include "tensorflow_ipu/train/gradient_accumulation_optimizer.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tensorflow_ipu/train/momentum.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;
using testing::IpuTest;
using GradientAccumulationTest = IpuTest;
using Reduction = train::GradientAccumulationReductionMethod;

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

// 32 rows of 3 features and 2 targets.
std::vector<Tensor> Rows() {
  std::vector<float> x, y;
  for (int i = 0; i < 32; ++i) {
    x.insert(x.end(), {std::sin(i * 0.7f), std::cos(i * 0.3f), 0.05f * i});
    y.insert(y.end(), {0.25f * i / 32, 1.f - 0.02f * i});
  }
  return {*Tensor::FromValues<float>(x, TensorShape({32, 3})),
          *Tensor::FromValues<float>(y, TensorShape({32, 2}))};
}

struct Setup {
  int replicas = 1;
  int batch = 4;       // rows per mini-batch and replica
  int iterations = 8;  // of the loop, per run
  int accumulate = 0;  // N (0: no gradient accumulation)
  Reduction reduction = Reduction::MEAN;
  double learning_rate = 0.3;
  bool momentum = false;
};

struct Result {
  absl::Status status;
  std::vector<float> w;
  int64_t global_step = 0;
  Tensor updates;  // the outfeed of w, which waits for each update
  uint64_t inter_ipu_bytes = 0;
};

Result Train(const Setup& c) {
  static int runs = 0;  // feed names are process-wide
  const std::string tag = std::to_string(runs++);
  Result r;
  ipu::IpuSystem::Get().Reset();
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = c.replicas;
  r.status = cfg.configure_ipu_system();
  if (!r.status.ok()) return r;
  Scope root = Scope::NewRootScope();
  Variable step = *train::get_or_create_global_step(root.WithDevice("cpu"));
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  data::Dataset rows = *data::Dataset::FromTensorSlices(Rows());
  auto infeed = ipu::IPUInfeedQueue::Create(rows.Batch(c.batch, true).Repeat(), "ga_rows_" + tag);
  if (!infeed.ok()) {
    r.status = infeed.status();
    return r;
  }
  ipu::IPUOutfeedQueue updates("ga_updates_" + tag);
  Variable w = *get_variable(ipu, "w", {3, 2}, DT_FLOAT,
                             initializers::Value(*Tensor::FromValues<float>(
                                 {0.1f, -0.2f, 0.3f, 0.05f, -0.1f, 0.2f}, TensorShape({3, 2}))));
  train::GradientDescentOptimizer sgd(c.learning_rate);
  train::MomentumOptimizer momentum(c.learning_rate, 0.9);
  train::Optimizer& inner = c.momentum ? static_cast<train::Optimizer&>(momentum) : sgd;
  train::CrossReplicaOptimizer cross(inner);
  train::Optimizer& replicated = c.replicas > 1 ? static_cast<train::Optimizer&>(cross) : inner;
  train::GradientAccumulationOptimizerV2 ga(replicated, c.accumulate, c.reduction);
  train::Optimizer& opt = c.accumulate != 0 ? static_cast<train::Optimizer&>(ga) : replicated;
  auto loop = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, c.iterations,
            [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>& in) {
              Output pred = ops::MatMul(b, in[0], w.value(b));
              Output loss = ops::Mean(b, ops::Square(b, ops::Sub(b, pred, in[1])), {0, 1});
              auto done = opt.minimize(b, loss, &step);
              if (!done.ok()) {
                b.UpdateStatus(done.status());
              } else {
                updates.enqueue(b.WithControlDependencies({*done}), {w.value(b)});
              }
              return std::vector<Output>{};
            },
            {}, &*infeed);
        if (!out.ok()) s.UpdateStatus(out.status());
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  if (!loop.ok()) {
    r.status = loop.status();
    return r;
  }
  std::vector<Output> dequeued = updates.dequeue(root);
  Operation init = global_variables_initializer(root);
  testing::ProfilingSession session(root);
  r.status = session.Run({}, {}, {init, infeed->initializer(root)}, nullptr);
  if (r.status.ok()) r.status = session.Run({}, {}, {(*loop)[0].op()}, nullptr);
  if (!r.status.ok()) return r;
  for (const IpuClusterProfile& p : session.last_profile().clusters) {
    r.inter_ipu_bytes += p.inter_ipu_bytes;
  }
  std::vector<Tensor> out;
  r.status = session.Run({w.value(root), step.value(root), dequeued[0]}, &out);
  if (!r.status.ok()) return r;
  r.w = Floats(out[0]);
  r.global_step = out[1].data<int64_t>()[0];
  r.updates = out[2];
  return r;
}

void ExpectNear(const std::vector<float>& a, const std::vector<float>& b, double tol = 1e-5) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "element " << i;
}

// 8 mini-batches of 4 rows, accumulated 4 at a time with MEAN: 2 updates,
// each the same as one step on the 16 rows together.
TEST_F(GradientAccumulationTest, MeanOfNMiniBatchesIsOneStepOnTheirUnion) {
  Result big = Train({.batch = 16, .iterations = 2});
  Result acc = Train({.batch = 4, .iterations = 8, .accumulate = 4});
  ASSERT_TRUE(big.status.ok()) << big.status;
  ASSERT_TRUE(acc.status.ok()) << acc.status;
  ExpectNear(acc.w, big.w);
  EXPECT_GT(std::abs(acc.w[0] - 0.1f), 1e-3);  // it trained
  // One weight update (and one global step) per 4. The outfeed only waits
  // for the update, so it still sends one record per mini-batch
  // (gradient_accumulation_outfeed_test.cc); the last of each 4 follows the
  // update, as each record of the unaccumulated loop does.
  EXPECT_EQ(acc.global_step, 2);
  EXPECT_EQ(acc.updates.shape(), TensorShape({8, 3, 2}));
  EXPECT_EQ(big.updates.shape(), TensorShape({2, 3, 2}));
  const std::vector<float> acc_records = Floats(acc.updates), big_records = Floats(big.updates);
  for (int k = 0; k < 2; ++k) {
    ExpectNear(std::vector<float>(acc_records.begin() + (4 * k + 3) * 6,
                                  acc_records.begin() + (4 * k + 4) * 6),
               std::vector<float>(big_records.begin() + k * 6, big_records.begin() + (k + 1) * 6));
  }
}

TEST_F(GradientAccumulationTest, SumIsNTimesTheMeanAndRunningMeanIsTheMean) {
  Result mean = Train({.accumulate = 4, .reduction = Reduction::MEAN, .learning_rate = 0.3});
  Result sum = Train({.accumulate = 4, .reduction = Reduction::SUM, .learning_rate = 0.075});
  Result running =
      Train({.accumulate = 4, .reduction = Reduction::RUNNING_MEAN, .learning_rate = 0.3});
  ASSERT_TRUE(mean.status.ok()) << mean.status;
  ASSERT_TRUE(sum.status.ok()) << sum.status;
  ASSERT_TRUE(running.status.ok()) << running.status;
  ExpectNear(sum.w, mean.w);
  ExpectNear(running.w, mean.w);
}

// Momentum keeps its slot across updates only: its state advances once per
// update, as on the whole batch.
TEST_F(GradientAccumulationTest, StatefulOptimizersStepOncePerUpdate) {
  Result big = Train({.batch = 16, .iterations = 2, .momentum = true});
  Result acc = Train({.batch = 4, .iterations = 8, .accumulate = 4, .momentum = true});
  ASSERT_TRUE(big.status.ok()) << big.status;
  ASSERT_TRUE(acc.status.ok()) << acc.status;
  ExpectNear(acc.w, big.w);
}

// With 2 replicas, the gradients cross the IPU-Links once per update.
TEST_F(GradientAccumulationTest, ReplicatedAccumulationReducesOncePerUpdate) {
  Result big = Train({.batch = 16, .iterations = 2});
  Result replicated = Train({.replicas = 2, .batch = 2, .iterations = 8, .accumulate = 4});
  Result every_step = Train({.replicas = 2, .batch = 8, .iterations = 8});
  ASSERT_TRUE(big.status.ok()) << big.status;
  ASSERT_TRUE(replicated.status.ok()) << replicated.status;
  ASSERT_TRUE(every_step.status.ok()) << every_step.status;
  ExpectNear(replicated.w, big.w);
  // 2 all-reduces of w's 24 bytes (a ring of 2 sends them once) against 8.
  EXPECT_EQ(replicated.inter_ipu_bytes, 2u * 24);
  EXPECT_EQ(every_step.inter_ipu_bytes, 8u * 24);
  EXPECT_EQ(replicated.updates.shape(), TensorShape({8, 2, 3, 2}));
}

TEST_F(GradientAccumulationTest, TheVendorsVerifierErrors) {
  Result odd = Train({.iterations = 6, .accumulate = 4});
  EXPECT_EQ(odd.status.code(), absl::StatusCode::kFailedPrecondition) << odd.status;
  EXPECT_THAT(odd.status.message(),
              HasSubstr("with 4 number of mini batches inside a loop with 6 iterations"));
  Result zero = Train({.accumulate = -1});
  EXPECT_EQ(zero.status.code(), absl::StatusCode::kInvalidArgument) << zero.status;
  EXPECT_THAT(zero.status.message(), HasSubstr("num_mini_batches must be at least 1, got -1"));

  // Outside a loop.
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Variable w = *get_variable(ipu, "w", {2}, DT_FLOAT, initializers::Zeros());
  train::GradientDescentOptimizer sgd(0.1);
  train::GradientAccumulationOptimizerV2 ga(sgd, 2);
  auto step = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        Output loss = ops::Sum(s, ops::Square(s, ops::Sub(s, w.value(s), 1.f)), {0});
        auto done = ga.minimize(s, loss);
        if (!done.ok()) {
          s.UpdateStatus(done.status());
          return std::vector<Output>{};
        }
        return std::vector<Output>{ops::Identity(s.WithControlDependencies({*done}), loss)};
      }, {});
  ASSERT_TRUE(step.ok()) << step.status();
  ClientSession session(root);
  absl::Status s = session.Run({}, {}, {global_variables_initializer(root)}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session.Run({(*step)[0]}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(s.message(), HasSubstr("with 2 number of mini batches which is not inside a "
                                     "training loop"));
}

}  // namespace
}  // namespace tensorflow_ipu
