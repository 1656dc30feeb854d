// Random ops on the IPU: fresh numbers in every loop iteration and every
// Run, the same numbers for a seeded graph in fresh sessions, a dropout
// mask's kept fraction, and a dropout trained inside a loop.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/random_ops.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/pipelining/pipelining_ops.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;
using testing::IpuTest;
using RandomOpsTest = IpuTest;

constexpr int kWidth = 1000;

// Row k of an outfeed's [n, ...] records, flattened, as doubles.
std::vector<double> Row(const Tensor& t, int64_t k) {
  const int64_t width = t.NumElements() / t.shape().dim_size(0);
  std::vector<double> row;
  for (int64_t i = 0; i < width; ++i) {
    row.push_back(t.dtype() == DT_HALF
                      ? static_cast<double>(static_cast<float>(t.data<Eigen::half>()[k * width + i]))
                      : t.data<float>()[k * width + i]);
  }
  return row;
}

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / v.size();
}

// A graph whose loop of `iterations` outfeeds one value of `make` per
// iteration, and the ops to run it and to dequeue the records.
struct RandomLoop {
  Scope root = Scope::NewRootScope();
  Operation run;
  Output records;
};

RandomLoop BuildLoop(int iterations, const std::string& feed,
                     const std::function<Output(const Scope&)>& make) {
  RandomLoop g;
  Scope ipu = ipu::scopes::ipu_scope(g.root, "/device:IPU:0");
  ipu::IPUOutfeedQueue outfeed(feed);
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, iterations,
            [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>&) {
              outfeed.enqueue(b, {make(b)});
              return std::vector<Output>{};
            });
        if (!out.ok()) s.UpdateStatus(out.status());
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  EXPECT_TRUE(r.ok()) << r.status();
  if (r.ok() && !r->empty()) g.run = (*r)[0].op();
  g.records = outfeed.dequeue(g.root)[0];
  return g;
}

// Runs the loop once in `session` and returns its records; checks that it
// ran as one IPU cluster (not on the host).
Tensor RunOnce(testing::ProfilingSession& session, const RandomLoop& g) {
  absl::Status s = session.Run({}, {}, {g.run}, nullptr);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(session.last_profile().clusters.size(), 1u) << "the loop did not run on the IPU";
  EXPECT_GT(session.last_profile().total_cycles, 0u);
  std::vector<Tensor> out;
  s = session.Run({g.records}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out.empty() ? Tensor() : out[0];
}

Output Uniform(const Scope& s, ops::RandomUniform::Attrs attrs = {}) {
  return ops::RandomUniform(s, ops::Const(s, {kWidth}), DT_FLOAT, attrs);
}

// Mean of U[0, 1) over n values: sd sqrt(1/12/n); 5 of them is a bound no
// correct generator misses in practice.
double UniformMeanTolerance(int n) { return 5 * std::sqrt(1.0 / 12 / n); }

TEST_F(RandomOpsTest, EveryIterationAndEveryRunDrawsFreshUniformNumbers) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=16");
  const int n = 6;
  RandomLoop g = BuildLoop(n, "uniform_rows", [](const Scope& b) { return Uniform(b); });
  ASSERT_TRUE(g.root.ok()) << g.root.status();
  testing::ProfilingSession session(g.root);
  Tensor first = RunOnce(session, g);
  Tensor second = RunOnce(session, g);
  ASSERT_EQ(first.shape(), TensorShape({n, kWidth}));
  ASSERT_EQ(second.shape(), TensorShape({n, kWidth}));
  std::set<std::vector<double>> rows;
  for (const Tensor* t : {&first, &second}) {
    for (int k = 0; k < n; ++k) {
      std::vector<double> row = Row(*t, k);
      for (double v : row) {
        ASSERT_GE(v, 0.0);
        ASSERT_LT(v, 1.0);
      }
      EXPECT_NEAR(Mean(row), 0.5, UniformMeanTolerance(kWidth)) << "row " << k;
      rows.insert(row);
    }
  }
  // All 2n rows differ: every iteration of both runs drew fresh numbers.
  EXPECT_EQ(rows.size(), 2u * n);
}

TEST_F(RandomOpsTest, ASeededGraphGivesTheSameNumbersInFreshSessions) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=16");
  auto draw = [](const std::string& feed, ops::RandomUniform::Attrs attrs, int runs) {
    RandomLoop g = BuildLoop(3, feed, [&](const Scope& b) { return Uniform(b, attrs); });
    testing::ProfilingSession session(g.root);
    std::vector<std::vector<double>> rows;
    for (int r = 0; r < runs; ++r) {
      Tensor t = RunOnce(session, g);
      for (int k = 0; k < 3; ++k) rows.push_back(Row(t, k));
    }
    return rows;
  };
  const auto seeded = ops::RandomUniform::Attrs().Seed(7).Seed2(3);
  const auto a = draw("seeded_a", seeded, 2);
  const auto b = draw("seeded_b", seeded, 2);
  EXPECT_EQ(a, b);  // both runs of both sessions, row for row
  EXPECT_NE(a[0], a[3]);  // the second run went on, it did not repeat
  const auto other = draw("seeded_c", ops::RandomUniform::Attrs().Seed(7).Seed2(4), 1);
  EXPECT_NE(other[0], a[0]);
  // Without seeds, each session draws its own numbers.
  EXPECT_NE(draw("unseeded_a", {}, 1)[0], draw("unseeded_b", {}, 1)[0]);
}

TEST_F(RandomOpsTest, TwoUnseededOpsInOneLoopDrawDifferentStreams) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=16");
  RandomLoop g = BuildLoop(2, "two_ops", [](const Scope& b) {
    return ops::Concat(b, {Uniform(b), Uniform(b)}, ops::Const(b, 0));
  });
  testing::ProfilingSession session(g.root);
  Tensor t = RunOnce(session, g);
  ASSERT_EQ(t.shape(), TensorShape({2, 2 * kWidth}));
  for (int k = 0; k < 2; ++k) {
    std::vector<double> row = Row(t, k);
    EXPECT_NE(std::vector<double>(row.begin(), row.begin() + kWidth),
              std::vector<double>(row.begin() + kWidth, row.end()));
  }
}

TEST_F(RandomOpsTest, ADropoutMaskKeepsOneMinusTheRate) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=16");
  const int width = 20000;
  const float rate = 0.3f;
  RandomLoop g = BuildLoop(2, "masks", [&](const Scope& b) {
    auto u = ops::RandomUniform(b, ops::Const(b, {width}), DT_FLOAT);
    return ops::Cast(b, ops::GreaterEqual(b, u, ops::Const(b, rate)), DT_FLOAT);
  });
  testing::ProfilingSession session(g.root);
  Tensor masks = RunOnce(session, g);
  ASSERT_EQ(masks.shape(), TensorShape({2, width}));
  const double sd = std::sqrt(rate * (1 - rate) / width);
  for (int k = 0; k < 2; ++k) {
    std::vector<double> m = Row(masks, k);
    for (double v : m) ASSERT_TRUE(v == 0 || v == 1) << v;
    EXPECT_NEAR(Mean(m), 1 - rate, 5 * sd) << "mask " << k;
  }
  EXPECT_NE(Row(masks, 0), Row(masks, 1));
}

TEST_F(RandomOpsTest, NormalsAndTruncatedNormalsInHalfAndFloat) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=16");
  const int width = 4000;
  auto moments = [&](const std::string& feed, const std::function<Output(const Scope&)>& make,
                     DataType dtype) {
    RandomLoop g = BuildLoop(2, feed, make);
    testing::ProfilingSession session(g.root);
    Tensor t = RunOnce(session, g);
    EXPECT_EQ(t.dtype(), dtype);
    EXPECT_EQ(t.shape(), TensorShape({2, 2, width / 2}));
    std::vector<double> v = Row(t, 1);
    double m = Mean(v), m2 = 0, worst = 0;
    for (double x : v) m2 += (x - m) * (x - m), worst = std::max(worst, std::abs(x));
    EXPECT_NE(Row(t, 0), v);
    return std::vector<double>{m, std::sqrt(m2 / v.size()), worst};
  };
  auto normal = moments("normals", [&](const Scope& b) {
    return ops::RandomNormal(b, ops::Const(b, {2, width / 2}), DT_FLOAT);
  }, DT_FLOAT);
  EXPECT_NEAR(normal[0], 0, 5 / std::sqrt(width));
  EXPECT_NEAR(normal[1], 1, 0.05);
  EXPECT_GT(normal[2], 2.5);  // tails beyond two deviations exist
  auto truncated = moments("truncated", [&](const Scope& b) {
    return ops::TruncatedNormal(b, ops::Const(b, {2, width / 2}), DT_HALF);
  }, DT_HALF);
  EXPECT_NEAR(truncated[0], 0, 5 / std::sqrt(width));
  EXPECT_NEAR(truncated[1], 0.8796, 0.05);  // sd of a normal cut at +-2
  EXPECT_LE(truncated[2], 2.0);
  auto uniform_half = moments("uniform_half", [&](const Scope& b) {
    return ops::RandomUniform(b, ops::Const(b, {2, width / 2}), DT_HALF);
  }, DT_HALF);
  EXPECT_NEAR(uniform_half[0], 0.5, UniformMeanTolerance(width));
  EXPECT_LT(uniform_half[2], 1.0);
}

// x * mask with a fresh mask each step, trained by gradient descent in an
// on-device loop: each weight moves only in the steps its mask kept it,
// by exactly lr x its input.
TEST_F(RandomOpsTest, DropoutTrainsInsideALoop) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=16");
  const int n = 64, steps = 5;
  const float lr = 0.25f;
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  std::vector<float> x_values;
  for (int i = 0; i < n; ++i) x_values.push_back(0.5f + i % 4);
  Variable w = *get_variable(ipu, "w", {n}, DT_FLOAT,
                             initializers::Value(Tensor::Vector<float>(std::vector<float>(n, 1.f))));
  train::GradientDescentOptimizer opt(lr);
  ipu::IPUOutfeedQueue outfeed("dropout_masks");
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, steps, [&](const Scope& b, const std::vector<Output>&,
                          const std::vector<Output>&) -> ipu::ComputationOutputs {
              auto u = ops::RandomUniform(b, ops::Const(b, {n}), DT_FLOAT);
              auto mask = ops::Cast(b, ops::GreaterEqual(b, u, ops::Const(b, 0.5f)), DT_FLOAT);
              auto x = ops::Const(b, Tensor::Vector<float>(x_values));
              Output loss = ops::Sum(b, ops::Mul(b, ops::Mul(b, w.value(b), mask), x), {0});
              auto train = opt.minimize(b, loss);
              EXPECT_TRUE(train.ok()) << train.status();
              return {outfeed.enqueue(b, {mask}), *train};
            });
        EXPECT_TRUE(out.ok()) << out.status();
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(r.ok()) << r.status();
  Output masks_out = outfeed.dequeue(root)[0];
  Operation init = global_variables_initializer(root);
  ASSERT_TRUE(root.ok()) << root.status();
  testing::ProfilingSession session(root);
  ASSERT_EQ(absl::OkStatus(), session.Run({}, {}, {init}, nullptr));
  ASSERT_EQ(absl::OkStatus(), session.Run({}, {}, {(*r)[0].op()}, nullptr));
  ASSERT_EQ(session.last_profile().clusters.size(), 1u);
  std::vector<Tensor> out;
  ASSERT_EQ(absl::OkStatus(), session.Run({masks_out, w.value(root)}, &out));
  ASSERT_EQ(out[0].shape(), TensorShape({steps, n}));
  std::set<std::vector<double>> distinct;
  std::vector<double> kept(n, 0);
  for (int k = 0; k < steps; ++k) {
    std::vector<double> m = Row(out[0], k);
    distinct.insert(m);
    for (int i = 0; i < n; ++i) kept[i] += m[i];
  }
  EXPECT_EQ(distinct.size(), static_cast<size_t>(steps));
  for (int i = 0; i < n; ++i) {
    // d loss / d w_i = mask_i x_i; each step w_i -= lr x mask_i x x_i.
    float expected = 1.f;
    for (int k = 0; k < steps; ++k) {
      if (Row(out[0], k)[i] != 0) expected -= lr * x_values[i];
    }
    EXPECT_EQ(out[1].data<float>()[i], expected) << "w[" << i << "] kept " << kept[i];
  }
}

TEST_F(RandomOpsTest, EachReplicaDrawsItsOwnNumbers) {
  Configure(2, "--use_ipu_model --ipu_model_tiles=16");  // two replicas of one IPU
  RandomLoop g = BuildLoop(2, "replicated_rows", [](const Scope& b) { return Uniform(b); });
  testing::ProfilingSession session(g.root);
  Tensor t = RunOnce(session, g);
  ASSERT_EQ(t.shape(), TensorShape({2, 2, kWidth}));  // [iteration, replica, ...]
  std::set<std::vector<double>> rows;
  for (int k = 0; k < 2; ++k) {
    std::vector<double> both = Row(t, k);
    rows.insert(std::vector<double>(both.begin(), both.begin() + kWidth));
    rows.insert(std::vector<double>(both.begin() + kWidth, both.end()));
  }
  EXPECT_EQ(rows.size(), 4u);
}

// A two-stage pipeline on two IPUs, each stage adding its own draw: every
// micro-batch gets fresh numbers from both.
TEST_F(RandomOpsTest, EveryPipelineMicroBatchDrawsFreshNumbers) {
  Configure(2, "--use_ipu_model --ipu_model_tiles=16");
  const int depth = 4, width = 100;
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  data::Dataset zeros = *data::Dataset::FromTensorSlices({Tensor::FromVector(
      std::vector<float>(depth * width, 0.f), TensorShape({depth, width}))});
  auto infeed = ipu::IPUInfeedQueue::Create(zeros.Repeat(), "random_pipe_in");
  ASSERT_TRUE(infeed.ok()) << infeed.status();
  ipu::IPUOutfeedQueue outfeed("random_pipe_out");
  auto draw = [&](const Scope& s, const Output& x) {
    return ops::Add(s, x, ops::RandomUniform(s, ops::Const(s, {width}), DT_FLOAT));
  };
  auto compiled = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) -> std::vector<Output> {
        auto op = ipu::pipelining_ops::pipeline(
            s,
            {[&](const Scope& b, const std::vector<Output>& in) {
               return std::vector<Output>{draw(b, in[0])};
             },
             [&](const Scope& b, const std::vector<Output>& in) {
               return std::vector<Output>{draw(b, in[0])};
             }},
            depth, 1, {}, &*infeed, &outfeed);
        if (!op.ok()) {
          s.UpdateStatus(op.status());
          return {};
        }
        return {Output(*op, 0)};
      }, {});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  Output records = outfeed.dequeue(root)[0];
  testing::ProfilingSession session(root);
  ASSERT_EQ(absl::OkStatus(), session.Run({}, {}, {infeed->initializer(root)}, nullptr));
  ASSERT_EQ(absl::OkStatus(), session.Run({}, {}, {(*compiled)[0].op()}, nullptr));
  ASSERT_EQ(session.last_profile().clusters.size(), 1u);
  std::vector<Tensor> out;
  ASSERT_EQ(absl::OkStatus(), session.Run({records}, &out));
  ASSERT_EQ(out[0].shape(), TensorShape({depth, width}));
  std::set<std::vector<double>> rows;
  for (int k = 0; k < depth; ++k) {
    std::vector<double> row = Row(out[0], k);
    for (double v : row) {
      ASSERT_GE(v, 0.0);
      ASSERT_LT(v, 2.0);
    }
    EXPECT_NEAR(Mean(row), 1.0, 5 * std::sqrt(2.0 / 12 / width)) << "micro-batch " << k;
    rows.insert(row);
  }
  EXPECT_EQ(rows.size(), static_cast<size_t>(depth));
}

TEST_F(RandomOpsTest, DoubleRandomNumbersAreUnimplementedOnTheIpu) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=16");
  RandomLoop g = BuildLoop(1, "doubles", [](const Scope& b) {
    return ops::RandomUniform(b.WithOpName("double_uniform"), ops::Const(b, {4}), DT_DOUBLE);
  });
  testing::ProfilingSession session(g.root);
  absl::Status s = session.Run({}, {}, {g.run}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("double_uniform"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("RandomUniform"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("float and half"));
}

}  // namespace
}  // namespace tensorflow_ipu
