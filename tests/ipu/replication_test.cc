// Replication through the session: more IPUs attached than the graph has
// shards run replicas of it. Each replica reads its own infeed batches,
// outfeeds gain a replica dimension, the cross-replica ops combine the
// replicas' values, and CrossReplicaOptimizer trains R replicas exactly as
// one IPU trains on the R batches together.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/ipu/cross_replica_ops.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/cross_replica_optimizer.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tensorflow_ipu/train/saver.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::IpuTest;
using ReplicationTest = IpuTest;

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}
std::vector<int32_t> Ints(const Tensor& t) {
  return std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + t.NumElements());
}

data::Dataset Range(int n) {
  std::vector<float> v;
  for (int i = 1; i <= n; ++i) v.push_back(static_cast<float>(i));
  return *data::Dataset::FromTensorSlices({Tensor::Vector<float>(v)});
}

// 4 IPUs, an unsharded loop of 2 iterations: 4 replicas. Replica r reads
// elements r and r + 4 of the infeed.
TEST_F(ReplicationTest, EachReplicaReadsItsOwnBatchesAndTheOutfeedHasAReplicaDimension) {
  Configure(4);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  absl::StatusOr<ipu::IPUInfeedQueue> infeed = ipu::IPUInfeedQueue::Create(Range(8), "in8");
  ASSERT_TRUE(infeed.ok()) << infeed.status();
  ipu::IPUOutfeedQueue outfeed("replicated_out");
  ipu::IPUOutfeedQueue last("replicated_last", ipu::OutfeedMode::kLast);
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, 2,
            [&](const Scope& b, const std::vector<Output>& c, const std::vector<Output>& x) {
              outfeed.enqueue(b, {x[0], ipu::ops::cross_replica_sum(b, x[0]),
                                  ipu::ops::cross_replica_mean(b, x[0], 2),
                                  ipu::ops::replication_index(b)});
              last.enqueue(b, {x[0]});
              return std::vector<Output>{ops::Add(b, c[0], x[0])};
            },
            {ops::Const(s, 0.f)}, &*infeed);
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Output> dequeued = outfeed.dequeue(root);
  std::vector<Output> last_dequeued = last.dequeue(root);
  ASSERT_TRUE(root.ok()) << root.status();
  // The replication factor is known from the configured system.
  EXPECT_EQ(dequeued[0].shape().DebugString(), TensorShape({-1, 4}).DebugString());
  EXPECT_EQ(last_dequeued[0].shape().DebugString(), TensorShape({4}).DebugString());

  testing::ProfilingSession session(root);
  absl::Status s = session.Run({}, {}, {infeed->initializer(root)}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session.Run({(*r)[0]}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].data<float>()[0], 1.f + 5.f);  // replica 0's loop value
  // Per iteration a sum over a ring of 4 (2 x 3/4 of 4 bytes) and a mean
  // over rings of 2 (2 x 1/2 of 4 bytes), each replica's share.
  const IpuRunProfile p = session.last_profile();
  ASSERT_EQ(p.clusters.size(), 1u);
  EXPECT_EQ(p.clusters[0].replicas, 4);
  EXPECT_EQ(p.clusters[0].inter_ipu_bytes, 2u * (6 + 4));
  s = session.Run({dequeued[0], dequeued[1], dequeued[2], dequeued[3], last_dequeued[0]},
                  &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].shape(), TensorShape({2, 4}));
  EXPECT_THAT(Floats(out[0]), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  EXPECT_THAT(Floats(out[1]), ElementsAre(10, 10, 10, 10, 26, 26, 26, 26));
  // Groups of 2: replicas {0, 1} and {2, 3}.
  EXPECT_THAT(Floats(out[2]), ElementsAre(1.5, 1.5, 3.5, 3.5, 5.5, 5.5, 7.5, 7.5));
  EXPECT_THAT(Ints(out[3]), ElementsAre(0, 1, 2, 3, 0, 1, 2, 3));
  EXPECT_THAT(Floats(out[4]), ElementsAre(5, 6, 7, 8));  // the last iteration

  // The infeed is used up after one run of 2 iterations x 4 replicas.
  absl::Status dry = session.Run({(*r)[0]}, &out);
  EXPECT_EQ(dry.code(), absl::StatusCode::kOutOfRange) << dry;
  EXPECT_THAT(dry.message(), HasSubstr("needs 8 elements, but only 0 were left"));
}

// A fetched result is replica 0's; a fed value reaches every replica.
TEST_F(ReplicationTest, FetchesComeFromReplicaZeroAndFeedsGoToEveryReplica) {
  Configure(2);
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithDevice("cpu"), DT_FLOAT,
                              ops::Placeholder::Shape(TensorShape({2})));
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>& in) {
        Output index = ipu::ops::replication_index(s);
        Output scaled = ops::Mul(s, in[0], ops::Cast(s, ops::Add(s, index, 1), DT_FLOAT));
        return std::vector<Output>{ipu::ops::cross_replica_sum(s, scaled), index};
      }, {x});
  ASSERT_TRUE(r.ok()) << r.status();
  testing::ProfilingSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({{x, Tensor::Vector<float>({1, 10})}}, {(*r)[0], (*r)[1]}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(Floats(out[0]), ElementsAre(3, 30));  // 1x + 2x
  EXPECT_EQ(out[1].data<int32_t>()[0], 0);
  const IpuRunProfile& p = session.last_profile();
  ASSERT_EQ(p.clusters.size(), 1u);
  // The sum of 8 bytes went round a ring of 2: 2 (1/2) 8 bytes per replica.
  EXPECT_EQ(p.clusters[0].inter_ipu_bytes, 8u);
}

// On the host (one replica) the ops are the identity and 0.
TEST_F(ReplicationTest, OnTheHostTheOpsSeeOneReplica) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, {2.f, 4.f});
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({ipu::ops::cross_replica_sum(root, x),
                                ipu::ops::cross_replica_mean(root, x),
                                ipu::ops::replication_index(root)},
                               &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(Floats(out[0]), ElementsAre(2, 4));
  EXPECT_THAT(Floats(out[1]), ElementsAre(2, 4));
  EXPECT_EQ(out[2].data<int32_t>()[0], 0);
}

// The all-reduce writes its result over its input only when nothing reads
// the input afterwards (compiler/input_reuse.h). Here `local` (3 and 6 on
// the two replicas) is read again after its sum, and `other` (1 and 2) is
// not: each replica still sees its own `local`, with the sums reduced
// separately and combined into one all-reduce alike.
TEST_F(ReplicationTest, AReductionKeepsAnInputThatIsReadAfterIt) {
  for (const int64_t sum_buffer : {int64_t{0}, int64_t{10} << 20}) {
    SCOPED_TRACE(sum_buffer == 0 ? "separate reductions" : "one combined reduction");
    static int runs = 0;  // feed names are process-wide
    ipu::IpuSystem::Get().Reset();
    ipu::config::IPUConfig cfg;
    cfg.auto_select_ipus = 2;
    cfg.optimizations.maximum_cross_replica_sum_buffer_size = sum_buffer;
    absl::Status s = cfg.configure_ipu_system();
    ASSERT_TRUE(s.ok()) << s;
    Scope root = Scope::NewRootScope();
    Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
    ipu::IPUOutfeedQueue outfeed("kept_" + std::to_string(runs++));
    auto r = ipu::ipu_compiler::compile(
        ipu, [&](const Scope& s, const std::vector<Output>&) {
          auto out = ipu::loops::repeat(s, 1, [&](const Scope& b, const std::vector<Output>&,
                                                   const std::vector<Output>&) {
            Output one = ops::Cast(b, ops::Add(b, ipu::ops::replication_index(b), 1), DT_FLOAT);
            Output local = ops::Mul(b, one, 3.f);
            Output other = ops::Mul(b, one, 1.f);
            Output local_sum = ipu::ops::cross_replica_sum(b, local);
            Output other_sum = ipu::ops::cross_replica_sum(b, other);
            // Reads `local` after its sum: 3 + 9 and 6 + 9.
            Output after = ops::Add(b, local, ops::Add(b, local_sum, other_sum));
            outfeed.enqueue(b, {local_sum, other_sum, after});
            return std::vector<Output>{};
          });
          return out.ok() ? *out : std::vector<Output>{};
        }, {});
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<Output> dequeued = outfeed.dequeue(root);
    ASSERT_TRUE(root.ok()) << root.status();
    ClientSession session(root);
    s = session.Run({}, {}, {(*r)[0].op()}, nullptr);
    ASSERT_TRUE(s.ok()) << s;
    std::vector<Tensor> out;
    s = session.Run({dequeued[0], dequeued[1], dequeued[2]}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_THAT(Floats(out[0]), ElementsAre(9, 9));
    EXPECT_THAT(Floats(out[1]), ElementsAre(3, 3));
    EXPECT_THAT(Floats(out[2]), ElementsAre(15, 18));
  }
}

TEST_F(ReplicationTest, AGroupSizeThatDoesNotDivideTheReplicasIsAnError) {
  Configure(4);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        return std::vector<Output>{
            ipu::ops::cross_replica_sum(s.WithOpName("odd_sum"), ops::Const(s, 1.f), 3)};
      }, {});
  ASSERT_TRUE(r.ok()) << r.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({(*r)[0]}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("odd_sum"));
  EXPECT_THAT(s.message(),
              HasSubstr("replica_group_size 3, which does not divide the replication factor 4"));
  // Building with a group size of 0 or less is refused at once.
  Scope b = Scope::NewRootScope();
  ipu::ops::cross_replica_mean(b, ops::Const(b, 1.f), 0);
  EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(b.status().message(), HasSubstr("replica_group_size must be positive, got 0"));
  // The session still works.
  s = session.Run({ops::Const(root, 1.f)}, &out);
  EXPECT_TRUE(s.ok()) << s;
}

// A linear model y = x w + b, with squared error averaged over the batch.
struct LinearModel {
  Variable w, b;
  Output loss;
};

LinearModel BuildLinear(const Scope& s, const Output& x, const Output& y) {
  LinearModel m;
  m.w = *get_variable(s, "w", {3, 2}, DT_FLOAT,
                      initializers::Value(*Tensor::FromValues<float>(
                          {0.1f, -0.2f, 0.3f, 0.05f, -0.1f, 0.2f}, TensorShape({3, 2}))));
  m.b = *get_variable(s, "b", {2}, DT_FLOAT,
                      initializers::Value(Tensor::Vector<float>({0.f, 0.1f})));
  Output pred = ops::Add(s, ops::MatMul(s, x, m.w.value(s)), m.b.value(s));
  m.loss = ops::Mean(s, ops::Square(s, ops::Sub(s, pred, y)), {0, 1});
  return m;
}

// 16 rows of features and targets.
std::vector<Tensor> Rows() {
  std::vector<float> x, y;
  for (int i = 0; i < 16; ++i) {
    x.insert(x.end(), {std::sin(i * 0.7f), std::cos(i * 0.3f), 0.1f * i});
    y.insert(y.end(), {0.5f * i / 16, 1.f - 0.05f * i});
  }
  return {*Tensor::FromValues<float>(x, TensorShape({16, 3})),
          *Tensor::FromValues<float>(y, TensorShape({16, 2}))};
}

struct Trained {
  std::vector<float> w, b;
  Tensor replica_w;  // the outfeed of w after each step: [steps, (R), 3, 2]
  IpuClusterProfile profile;  // of the training run
};

// Trains 4 steps: `replicas` replicas of batch 4 / replicas each (with
// CrossReplicaOptimizer) or one IPU of batch 4. Saves to `save` if given,
// after restoring from `restore` if given. `sum_buffer`:
// IPUConfig.optimizations.maximum_cross_replica_sum_buffer_size.
Trained Train(int replicas, const std::string& restore = "", const std::string& save = "",
              int64_t sum_buffer = 0) {
  static int runs = 0;  // feed names are process-wide
  const std::string tag = std::to_string(replicas) + "_" + std::to_string(runs++);
  ipu::IpuSystem::Get().Reset();
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = replicas;
  cfg.optimizations.maximum_cross_replica_sum_buffer_size = sum_buffer;
  absl::Status s = cfg.configure_ipu_system();
  EXPECT_TRUE(s.ok()) << s;
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  data::Dataset rows = *data::Dataset::FromTensorSlices(Rows());
  // Replica r of step i reads batch i * R + r: the R batches of a step are
  // the 4 rows that one IPU reads at step i.
  auto infeed = ipu::IPUInfeedQueue::Create(rows.Batch(4 / replicas, true),
                                            "rows_" + tag);
  EXPECT_TRUE(infeed.ok()) << infeed.status();
  ipu::IPUOutfeedQueue weights("weights_" + tag);
  train::GradientDescentOptimizer sgd(0.5);
  train::CrossReplicaOptimizer opt(sgd);
  LinearModel model;
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, 4,
            [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>& in) {
              model = BuildLinear(b, in[0], in[1]);
              auto step = opt.minimize(b, model.loss);
              EXPECT_TRUE(step.ok()) << step.status();
              if (step.ok()) {
                weights.enqueue(b.WithControlDependencies({*step}), {model.w.value(b)});
              }
              return std::vector<Output>{};
            },
            {}, &*infeed);
        EXPECT_TRUE(out.ok()) << out.status();
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  EXPECT_TRUE(r.ok()) << r.status();
  std::vector<Output> w_steps = weights.dequeue(root);
  Operation init = global_variables_initializer(root);
  train::Saver saver(root);
  testing::ProfilingSession session(root);
  Trained t;
  if (!r.ok() || !root.ok()) return t;
  s = session.Run({}, {}, {init, infeed->initializer(root)}, nullptr);
  EXPECT_TRUE(s.ok()) << s;
  if (!restore.empty()) {
    s = saver.restore(session, restore);
    EXPECT_TRUE(s.ok()) << s;
  }
  s = session.Run({}, {}, {(*r)[0].op()}, nullptr);
  EXPECT_TRUE(s.ok()) << s;
  if (s.ok() && !session.last_profile().clusters.empty()) {
    t.profile = session.last_profile().clusters.at(0);
  }
  std::vector<Tensor> out;
  s = session.Run({model.w.value(root), model.b.value(root), w_steps[0]}, &out);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return t;
  if (!save.empty()) {
    s = saver.save(session, save);
    EXPECT_TRUE(s.ok()) << s;
  }
  t.w = Floats(out[0]);
  t.b = Floats(out[1]);
  t.replica_w = out[2];
  return t;
}

void ExpectNear(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5) << "element " << i;
}

TEST_F(ReplicationTest, CrossReplicaOptimizerTrainsLikeOneIpuOnTheWholeBatch) {
  Trained one = Train(1), two = Train(2), four = Train(4);
  ExpectNear(two.w, one.w);
  ExpectNear(two.b, one.b);
  ExpectNear(four.w, one.w);
  ExpectNear(four.b, one.b);
  // Training moved the weights.
  EXPECT_GT(std::abs(one.w[0] - 0.1f), 1e-3);
  // After every step, every replica holds the same weights.
  ASSERT_EQ(four.replica_w.shape(), TensorShape({4, 4, 3, 2}));
  const float* w = four.replica_w.data<float>();
  for (int step = 0; step < 4; ++step) {
    for (int replica = 1; replica < 4; ++replica) {
      for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(w[(step * 4 + replica) * 6 + i], w[step * 4 * 6 + i])
            << "step " << step << " replica " << replica << " element " << i;
      }
    }
  }
}

// optimizations.maximum_cross_replica_sum_buffer_size: the step's two
// gradient reductions (w and b, 32 bytes together) become one all-reduce,
// which pays the ring's syncs and link latencies once instead of twice. The
// values are the same, bit for bit, and so are the bytes each IPU sends.
TEST_F(ReplicationTest, ACrossReplicaSumBufferMakesTheGradientsOneReduction) {
  const Trained separate = Train(2), combined = Train(2, "", "", /*sum_buffer=*/10 << 20);
  EXPECT_EQ(combined.w, separate.w);
  EXPECT_EQ(combined.b, separate.b);
  EXPECT_TRUE(combined.replica_w.BitwiseEquals(separate.replica_w));
  EXPECT_EQ(combined.profile.inter_ipu_bytes, separate.profile.inter_ipu_bytes);
  EXPECT_GT(separate.profile.inter_ipu_bytes, 0u);
  EXPECT_LT(combined.profile.inter_ipu_cycles, separate.profile.inter_ipu_cycles);
  EXPECT_LT(combined.profile.cycles, separate.profile.cycles);
  // A budget smaller than either gradient (w: 24 bytes, b: 8) combines
  // nothing.
  const Trained tight = Train(2, "", "", /*sum_buffer=*/4);
  EXPECT_EQ(tight.profile.cycles, separate.profile.cycles);
  EXPECT_EQ(tight.w, separate.w);
}

// A checkpoint of a replicated session restores into one IPU and back.
TEST_F(ReplicationTest, CheckpointsMoveBetweenReplicatedAndSingleIpuSessions) {
  const std::string dir = ::testing::TempDir();
  Trained first = Train(2, "", dir + "/replicated");
  Trained resumed_on_one = Train(1, dir + "/replicated", dir + "/single");
  Trained resumed_on_two = Train(2, dir + "/replicated");
  // Continuing from the same weights on either gives the same weights.
  ExpectNear(resumed_on_one.w, resumed_on_two.w);
  ExpectNear(resumed_on_one.b, resumed_on_two.b);
  Trained back = Train(2, dir + "/single");
  EXPECT_GT(std::abs(back.w[0] - resumed_on_one.w[0]), 1e-6);  // trained further
  (void)first;
}

}  // namespace
}  // namespace tensorflow_ipu
