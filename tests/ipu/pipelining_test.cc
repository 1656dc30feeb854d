// Pipelining through the session: ipu::pipelining_ops::pipeline trains a
// two-stage model on two IPUs to the same weights as the same model trained
// unpipelined with GradientAccumulationOptimizerV2, in every schedule; an
// inference pipeline outfeeds what the stages compute; the stages overlap
// in simulated time; and the vendor's rules give the vendor's errors.
#include <cmath>
#include <iostream>
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
#include "tensorflow_ipu/pipelining/pipelining_ops.h"
#include "tensorflow_ipu/train/gradient_accumulation_optimizer.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;
using ipu::pipelining_ops::ComputationalStage;
using ipu::pipelining_ops::OptimizerFunctionOutput;
using ipu::pipelining_ops::PipelineSchedule;
using testing::IpuTest;
using PipeliningTest = IpuTest;
using Reduction = train::GradientAccumulationReductionMethod;

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

// 64 rows of 3 features and 2 targets.
std::vector<Tensor> Rows() {
  std::vector<float> x, y;
  for (int i = 0; i < 64; ++i) {
    x.insert(x.end(), {std::sin(i * 0.7f), std::cos(i * 0.3f), 0.05f * (i % 17)});
    y.insert(y.end(), {0.25f * (i % 9) / 9, 1.f - 0.02f * (i % 23)});
  }
  return {*Tensor::FromValues<float>(x, TensorShape({64, 3})),
          *Tensor::FromValues<float>(y, TensorShape({64, 2}))};
}

Tensor Init(std::vector<float> v, TensorShape shape) {
  return *Tensor::FromValues<float>(std::move(v), shape);
}

enum class Mode { kPipelined, kUnpipelined };

struct Config {
  Mode mode = Mode::kPipelined;
  PipelineSchedule schedule = PipelineSchedule::Grouped;
  int ipus = 2;
  int depth = 4;  // gradient_accumulation_count
  int repeat = 2;
  Reduction reduction = Reduction::MEAN;
  bool train = true;
  bool accumulate_outfeed = false;
};

struct Result {
  absl::Status status;
  std::vector<float> w1, w2;
  Tensor outfed;
  uint64_t cycles = 0;
};

// Stage 0 (IPU 0): h = tanh(x w1). Stage 1 (IPU 1): the squared error of
// h w2 against y, averaged.
Result RunModel(const Config& c) {
  static int runs = 0;  // feed names are process-wide
  const std::string tag = std::to_string(runs++);
  Result r;
  ipu::IpuSystem::Get().Reset();
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = c.ipus;
  r.status = cfg.configure_ipu_system();
  if (!r.status.ok()) return r;
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  data::Dataset rows = *data::Dataset::FromTensorSlices(Rows());
  auto infeed = ipu::IPUInfeedQueue::Create(rows.Batch(4, true).Repeat(), "pipe_rows_" + tag);
  if (!infeed.ok()) {
    r.status = infeed.status();
    return r;
  }
  ipu::IPUOutfeedQueue outfeed("pipe_out_" + tag);
  Variable w1 = *get_variable(ipu::scopes::ipu_shard(ipu, 0), "w1", {3, 4}, DT_FLOAT,
                              initializers::Value(Init({0.1f, -0.2f, 0.3f, 0.05f, -0.1f, 0.2f,
                                                        0.15f, -0.05f, 0.25f, 0.1f, -0.3f, 0.2f},
                                                       TensorShape({3, 4}))));
  Variable w2 = *get_variable(ipu::scopes::ipu_shard(ipu, c.ipus > 1 ? 1 : 0), "w2", {4, 2},
                              DT_FLOAT,
                              initializers::Value(Init({0.2f, -0.1f, 0.05f, 0.3f, -0.2f, 0.1f,
                                                        0.25f, -0.15f},
                                                       TensorShape({4, 2}))));
  ComputationalStage stage0 = [&](const Scope& s, const std::vector<Output>& in) {
    return std::vector<Output>{ops::Tanh(s, ops::MatMul(s, in[0], w1.value(s))), in[1]};
  };
  ComputationalStage stage1 = [&](const Scope& s, const std::vector<Output>& in) {
    Output pred = ops::MatMul(s, in[0], w2.value(s));
    if (!c.train) return std::vector<Output>{pred};
    return std::vector<Output>{ops::Mean(s, ops::Square(s, ops::Sub(s, pred, in[1])), {0, 1})};
  };
  train::GradientDescentOptimizer sgd(0.5);
  auto compiled = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) -> std::vector<Output> {
        if (c.mode == Mode::kPipelined) {
          ipu::pipelining_ops::OptimizerFunction opt_fn;
          if (c.train) {
            opt_fn = [&](const Scope&, const std::vector<Output>& out) {
              return OptimizerFunctionOutput(sgd, out[0]);
            };
          }
          ipu::pipelining_ops::PipelineOptions options;
          options.reduction_method = c.reduction;
          options.accumulate_outfeed = c.accumulate_outfeed;
          auto op = ipu::pipelining_ops::pipeline(s, {stage0, stage1}, c.depth, c.repeat, {},
                                                  &*infeed, &outfeed, opt_fn, {}, c.schedule,
                                                  options);
          if (!op.ok()) {
            s.UpdateStatus(op.status());
            return {};
          }
          return {Output(*op, 0)};
        }
        // The same model in an ordinary loop on one IPU.
        train::GradientAccumulationOptimizerV2 ga(sgd, c.depth, c.reduction);
        auto out = ipu::loops::repeat(
            s, c.depth * c.repeat,
            [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>& in) {
              std::vector<Output> v = stage1(b, stage0(b, in));
              auto done = ga.minimize(b, v[0]);
              if (!done.ok()) b.UpdateStatus(done.status());
              outfeed.enqueue(b, v);
              return std::vector<Output>{};
            },
            {}, &*infeed);
        if (!out.ok()) {
          s.UpdateStatus(out.status());
          return {};
        }
        return *out;
      }, {});
  if (!compiled.ok()) {
    r.status = compiled.status();
    return r;
  }
  std::vector<Output> dequeued = outfeed.dequeue(root);
  Operation init = global_variables_initializer(root);
  testing::ProfilingSession session(root);
  r.status = session.Run({}, {}, {init, infeed->initializer(root)}, nullptr);
  if (r.status.ok()) r.status = session.Run({}, {}, {(*compiled)[0].op()}, nullptr);
  if (!r.status.ok()) return r;
  for (const IpuClusterProfile& p : session.last_profile().clusters) r.cycles += p.cycles;
  std::vector<Tensor> out;
  r.status = session.Run({w1.value(root), w2.value(root), dequeued[0]}, &out);
  if (!r.status.ok()) return r;
  r.w1 = Floats(out[0]);
  r.w2 = Floats(out[1]);
  r.outfed = out[2];
  return r;
}

void ExpectNear(const std::vector<float>& a, const std::vector<float>& b, double tol = 1e-5) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "element " << i;
}

TEST_F(PipeliningTest, GroupedTrainsLikeAccumulationWithoutPipelining) {
  Config unpipelined;
  unpipelined.mode = Mode::kUnpipelined;
  unpipelined.ipus = 1;
  const Result want = RunModel(unpipelined);
  ASSERT_TRUE(want.status.ok()) << want.status;
  const Result got = RunModel(Config{});
  ASSERT_TRUE(got.status.ok()) << got.status;
  ExpectNear(got.w1, want.w1);
  ExpectNear(got.w2, want.w2);
  // The weights moved: two updates of 4 micro-batches each.
  EXPECT_GT(std::fabs(got.w2[0] - 0.2f), 1e-3);
  // One loss per micro-batch, equal to the unpipelined loop's.
  ASSERT_EQ(got.outfed.shape(), TensorShape({8}));
  ExpectNear(Floats(got.outfed), Floats(want.outfed));
}

TEST_F(PipeliningTest, EverySchedulesTrainsToTheSameWeights) {
  const Result grouped = RunModel(Config{});
  ASSERT_TRUE(grouped.status.ok()) << grouped.status;
  for (PipelineSchedule schedule : {PipelineSchedule::Interleaved, PipelineSchedule::Sequential}) {
    Config c;
    c.schedule = schedule;
    const Result r = RunModel(c);
    ASSERT_TRUE(r.status.ok()) << static_cast<int>(schedule) << ": " << r.status;
    ExpectNear(r.w1, grouped.w1);
    ExpectNear(r.w2, grouped.w2);
  }
}

TEST_F(PipeliningTest, SumReductionMatchesToo) {
  Config unpipelined;
  unpipelined.mode = Mode::kUnpipelined;
  unpipelined.ipus = 1;
  unpipelined.reduction = Reduction::SUM;
  const Result want = RunModel(unpipelined);
  ASSERT_TRUE(want.status.ok()) << want.status;
  Config c;
  c.reduction = Reduction::SUM;
  c.depth = 8;
  unpipelined.depth = 8;
  const Result got = RunModel(c);
  ASSERT_TRUE(got.status.ok()) << got.status;
  const Result want8 = RunModel(unpipelined);
  ASSERT_TRUE(want8.status.ok()) << want8.status;
  ExpectNear(got.w1, want8.w1);
  ExpectNear(got.w2, want8.w2);
}

// `inputs` come first to stage 0, before the infeed's element; a value fed
// to the compiled program reaches a later stage through the stages' outputs.
TEST_F(PipeliningTest, InputsPrecedeTheInfeedElement) {
  Configure(2);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Output scale = ops::Placeholder(root.WithDevice("cpu").WithOpName("scale"), DT_FLOAT,
                                  ops::Placeholder::Shape({}));
  data::Dataset rows = *data::Dataset::FromTensorSlices(
      {*Tensor::FromValues<float>({1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({4, 2}))});
  auto infeed = ipu::IPUInfeedQueue::Create(rows, "pipe_inputs_rows");
  ASSERT_TRUE(infeed.ok()) << infeed.status();
  ipu::IPUOutfeedQueue outfeed("pipe_inputs_out");
  ComputationalStage first = [](const Scope& s, const std::vector<Output>& in) {
    // in[0] is the fed scale, in[1] the row.
    return std::vector<Output>{ops::Mul(s, in[1], in[0]), in[0]};
  };
  ComputationalStage second = [](const Scope& s, const std::vector<Output>& in) {
    return std::vector<Output>{ops::Add(s, in[0], in[1])};
  };
  auto compiled = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>& in) -> std::vector<Output> {
        auto op = ipu::pipelining_ops::pipeline(s, {first, second}, 2, 2, {in[0]}, &*infeed,
                                                &outfeed);
        if (!op.ok()) s.UpdateStatus(op.status());
        return op.ok() ? std::vector<Output>{Output(*op, 0)} : std::vector<Output>{};
      },
      {scale});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<Output> dequeued = outfeed.dequeue(root);
  ClientSession session(root);
  absl::Status s = session.Run({}, {}, {infeed->initializer(root)}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  s = session.Run({{scale, 10.f}}, {}, {(*compiled)[0].op()}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session.Run(dequeued, &out);
  ASSERT_TRUE(s.ok()) << s;
  // Each row x: 10 x + 10.
  EXPECT_EQ(out[0].DebugString(), "[[20. 30.]\n [40. 50.]\n [60. 70.]\n [80. 90.]]");
}

TEST_F(PipeliningTest, InferencePipelineOutfeedsEveryMicroBatch) {
  Config c;
  c.train = false;
  c.depth = 2;
  c.repeat = 3;
  const Result got = RunModel(c);
  ASSERT_TRUE(got.status.ok()) << got.status;
  // Each micro-batch's prediction, computed on the host.
  ASSERT_EQ(got.outfed.shape(), TensorShape({6, 4, 2}));
  const std::vector<Tensor> rows = Rows();
  const float* x = rows[0].data<float>();
  const std::vector<float> w1 = got.w1, w2 = got.w2;
  const std::vector<float> out = Floats(got.outfed);
  for (int row = 0; row < 24; ++row) {
    float h[4];
    for (int j = 0; j < 4; ++j) {
      float acc = 0;
      for (int k = 0; k < 3; ++k) acc += x[row * 3 + k] * w1[k * 4 + j];
      h[j] = std::tanh(acc);
    }
    for (int j = 0; j < 2; ++j) {
      float acc = 0;
      for (int k = 0; k < 4; ++k) acc += h[k] * w2[k * 2 + j];
      EXPECT_NEAR(out[row * 2 + j], acc, 1e-5) << "row " << row << " column " << j;
    }
  }
}

TEST_F(PipeliningTest, AccumulatedOutfeedSendsOneSumPerWeightUpdate) {
  Config c;
  c.train = false;
  c.depth = 2;
  c.repeat = 3;
  const Result each = RunModel(c);
  ASSERT_TRUE(each.status.ok()) << each.status;
  c.accumulate_outfeed = true;
  const Result summed = RunModel(c);
  ASSERT_TRUE(summed.status.ok()) << summed.status;
  ASSERT_EQ(summed.outfed.shape(), TensorShape({3, 4, 2}));
  const std::vector<float> e = Floats(each.outfed), s = Floats(summed.outfed);
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 8; ++k) {
      EXPECT_NEAR(s[r * 8 + k], e[(2 * r) * 8 + k] + e[(2 * r + 1) * 8 + k], 1e-6)
          << "record " << r << " element " << k;
    }
  }
  // Training: one loss sum per update, the same weights.
  Config t;
  const Result per_micro_batch = RunModel(t);
  ASSERT_TRUE(per_micro_batch.status.ok()) << per_micro_batch.status;
  t.accumulate_outfeed = true;
  const Result per_update = RunModel(t);
  ASSERT_TRUE(per_update.status.ok()) << per_update.status;
  ExpectNear(per_update.w1, per_micro_batch.w1);
  ASSERT_EQ(per_update.outfed.shape(), TensorShape({2}));
  const std::vector<float> l = Floats(per_micro_batch.outfed);
  EXPECT_NEAR(Floats(per_update.outfed)[1], l[4] + l[5] + l[6] + l[7], 1e-5);
}

TEST_F(PipeliningTest, StagesOverlapInSimulatedTime) {
  Config grouped;
  grouped.depth = 16;
  grouped.repeat = 1;
  Config sequential = grouped;
  sequential.schedule = PipelineSchedule::Sequential;
  const Result g = RunModel(grouped), s = RunModel(sequential);
  ASSERT_TRUE(g.status.ok()) << g.status;
  ASSERT_TRUE(s.status.ok()) << s.status;
  ExpectNear(g.w1, s.w1);
  // Sequential runs one stage at a time, like sharding; Grouped keeps both
  // IPUs busy.
  EXPECT_LT(g.cycles, s.cycles) << "grouped " << g.cycles << " sequential " << s.cycles;
  std::cout << "16 micro-batches: Grouped " << g.cycles << " cycles, Sequential " << s.cycles
            << "\n";
}

TEST_F(PipeliningTest, DepthRuleNamesTheNumber) {
  Config c;
  c.depth = 6;  // Grouped training of 2 stages: a multiple of 4
  Result r = RunModel(c);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kFailedPrecondition) << r.status;
  EXPECT_THAT(std::string(r.status.message()),
              HasSubstr("The number of iterations of the pipeline must be a multiple of 4, but "
                        "it is 6. This number might be called `gradient_accumulation_count`"));
  c.depth = 2;
  r = RunModel(c);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kFailedPrecondition) << r.status;
  EXPECT_THAT(std::string(r.status.message()),
              HasSubstr("must be at least 4, but it is 2"));
  c.schedule = PipelineSchedule::Interleaved;  // a multiple of 2
  r = RunModel(c);
  EXPECT_TRUE(r.status.ok()) << r.status;
  c.schedule = PipelineSchedule::Sequential;
  c.depth = 3;
  r = RunModel(c);
  EXPECT_TRUE(r.status.ok()) << r.status;
}

}  // namespace
}  // namespace tensorflow_ipu
