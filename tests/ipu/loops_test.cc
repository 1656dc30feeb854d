// On-device loops with infeeds and outfeeds, through the session.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/global_step.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IpuTest;
using LoopsTest = IpuTest;

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

data::Dataset Range(int n) {
  std::vector<float> v;
  for (int i = 1; i <= n; ++i) v.push_back(static_cast<float>(i));
  return *data::Dataset::FromTensorSlices({Tensor::Vector<float>(v)});
}

TEST_F(LoopsTest, CountsOnTheDeviceInOneRun) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto r = ipu::ipu_compiler::compile(
      ipu, [](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, 10,
            [](const Scope& b, const std::vector<Output>& c,
               const std::vector<Output>&) {
              return std::vector<Output>{ops::Add(b, c[0], 2.f),
                                         ops::Mul(b, c[1], 2.f)};
            },
            {ops::Const(s, 1.f), ops::Const(s, {1.f, 3.f})});
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(r.ok()) << r.status();
  testing::ProfilingSession session(root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({(*r)[0], (*r)[1]}, &out).ok())
      << session.Run({(*r)[0]}, &out);
  EXPECT_EQ(out[0].data<float>()[0], 21.f);
  EXPECT_THAT(Floats(out[1]), ElementsAre(1024.f, 3072.f));
  IpuRunProfile p = session.last_profile();
  ASSERT_EQ(p.clusters.size(), 1u);
}

TEST_F(LoopsTest, InfeedAndOutfeedMoveOneElementPerIteration) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  absl::StatusOr<ipu::IPUInfeedQueue> infeed =
      ipu::IPUInfeedQueue::Create(Range(10), "numbers");
  ASSERT_TRUE(infeed.ok()) << infeed.status();
  ipu::IPUOutfeedQueue outfeed("doubled");
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, 5,
            [&](const Scope& b, const std::vector<Output>& c,
                const std::vector<Output>& x) {
              outfeed.enqueue(b, {ops::Mul(b, x[0], 2.f)});
              return std::vector<Output>{ops::Add(b, c[0], x[0])};
            },
            {ops::Const(s, 0.f)}, &*infeed);
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Output> dequeued = outfeed.dequeue(root);
  ASSERT_TRUE(root.ok()) << root.status();
  testing::ProfilingSession session(root);
  std::vector<Tensor> out;
  // Before its initializer has run, the infeed gives nothing: the vendor's
  // FailedPrecondition, not numbers.
  absl::Status early = session.Run({(*r)[0]}, &out);
  EXPECT_EQ(early.code(), absl::StatusCode::kFailedPrecondition) << early;
  EXPECT_THAT(early.message(), HasSubstr("Infeed 'numbers' has not been initialized"));
  {
    absl::Status call_status = session.Run({}, {}, {infeed->initializer(root)}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  absl::Status s = session.Run({(*r)[0]}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].data<float>()[0], 15.f);  // 1+2+3+4+5
  // The five elements went in as one transfer of 5 records.
  EXPECT_EQ(session.last_profile().clusters[0].host_bytes_to_device,
            20u);
  {
    absl::Status call_status = session.Run({(*r)[0]}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(out[0].data<float>()[0], 40.f);  // 6+...+10
  s = session.Run({dequeued[0]}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(Floats(out[0]), ElementsAre(2, 4, 6, 8, 10, 12, 14, 16, 18, 20));

  // The data is used up: the next run says by how much it is short.
  absl::Status dry = session.Run({(*r)[0]}, &out);
  EXPECT_EQ(dry.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(dry.message(), HasSubstr("needs 5 elements, but only 0 were left"));
  // Restarting the infeed recovers.
  {
    absl::Status call_status = session.Run({}, {}, {infeed->initializer(root)}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  {
    absl::Status call_status = session.Run({(*r)[0]}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(out[0].data<float>()[0], 15.f);
}

TEST_F(LoopsTest, TrainingStepsInALoopAndGlobalStepOnTheCpu) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Variable step = *train::get_or_create_global_step(root.WithDevice("cpu"));
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Variable w = *get_variable(ipu, "w", {2}, DT_FLOAT,
                             initializers::Value(Tensor::Vector<float>({1, -2})));
  train::GradientDescentOptimizer opt(0.1);
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, 3, [&](const Scope& b, const std::vector<Output>&,
                      const std::vector<Output>&) {
              Output loss = ops::Sum(b, ops::Square(b, w.value(b)), {0});
              auto train = opt.minimize(b, loss, &step);
              EXPECT_TRUE(train.ok()) << train.status();
              return std::vector<Output>{};
            });
        EXPECT_TRUE(out.ok()) << out.status();
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(r.ok()) << r.status();
  Operation init = global_variables_initializer(root);
  testing::ProfilingSession session(root);
  {
    absl::Status call_status = session.Run({}, {}, {init}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  absl::Status s = session.Run({}, {}, {(*r)[0].op()}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  {
    absl::Status call_status = session.Run({}, {}, {(*r)[0].op()}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  std::vector<Tensor> out;
  {
    absl::Status call_status = session.Run({w.value(root), step.value(root)}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  // Six steps of w *= 0.8.
  EXPECT_NEAR(out[0].data<float>()[0], std::pow(0.8, 6), 1e-6);
  EXPECT_NEAR(out[0].data<float>()[1], -2 * std::pow(0.8, 6), 1e-6);
  EXPECT_EQ(out[1].data<int64_t>()[0], 6);
}

// A variable created inside the body (as a TF1 model function that builds
// its layers there does) is initialised once, by its initializer, not in
// every iteration.
TEST_F(LoopsTest, AVariableCreatedInTheBodyIsInitialisedOnce) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  train::GradientDescentOptimizer opt(0.1);
  std::optional<Variable> w;
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, 3, [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>&) {
              auto v = get_variable(b, "w_in_body", {2}, DT_FLOAT,
                                    initializers::Value(Tensor::Vector<float>({1, -2})));
              EXPECT_TRUE(v.ok()) << v.status();
              if (!v.ok()) return std::vector<Output>{};
              w = *v;
              Output loss = ops::Sum(b, ops::Square(b, w->value(b)), {0});
              auto train = opt.minimize(b, loss);
              EXPECT_TRUE(train.ok()) << train.status();
              return std::vector<Output>{};
            });
        EXPECT_TRUE(out.ok()) << out.status();
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(w.has_value());
  Operation init = global_variables_initializer(root);
  ClientSession session(root);
  absl::Status s = session.Run({}, {}, {init}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  s = session.Run({}, {}, {(*r)[0].op()}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session.Run({w->value(root)}, &out);
  ASSERT_TRUE(s.ok()) << s;
  // Three steps of w *= 0.8, from the initial value.
  EXPECT_NEAR(out[0].data<float>()[0], std::pow(0.8, 3), 1e-6);
  EXPECT_NEAR(out[0].data<float>()[1], -2 * std::pow(0.8, 3), 1e-6);
}

// A model function called in two loop bodies (a training loop and an
// evaluation loop, as TF1 programs write them) asks for the same
// variables: the evaluation sees what training did. (Variables named by
// the loops' name scopes would give two sets, and the evaluation the
// untrained initial values, silently.)
TEST_F(LoopsTest, AModelBuiltInTwoLoopsSharesItsVariables) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  ipu::IPUOutfeedQueue seen("shared_model_seen");
  auto model = [](const Scope& s) -> absl::StatusOr<Variable> {
    VariableScope vs(s, "model", {.reuse = Reuse::kAutoReuse});
    return vs.get_variable("w", {2}, DT_FLOAT,
                           initializers::Value(Tensor::Vector<float>({1, 2})));
  };
  std::vector<Variable> made;
  auto train = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, 3, [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>&) {
              absl::StatusOr<Variable> w = model(b);
              if (!w.ok()) {
                b.UpdateStatus(w.status());
                return std::vector<Output>{};
              }
              made.push_back(*w);
              w->assign_add(b, {1.f, 1.f});
              return std::vector<Output>{};
            });
        if (!out.ok()) s.UpdateStatus(out.status());
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(train.ok()) << train.status();
  auto evaluate = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto out = ipu::loops::repeat(
            s, 1, [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>&) {
              absl::StatusOr<Variable> w = model(b);
              if (!w.ok()) {
                b.UpdateStatus(w.status());
                return std::vector<Output>{};
              }
              made.push_back(*w);
              seen.enqueue(b, {w->value(b)});
              return std::vector<Output>{};
            });
        if (!out.ok()) s.UpdateStatus(out.status());
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(evaluate.ok()) << evaluate.status();
  ASSERT_EQ(made.size(), 2u);
  EXPECT_EQ(made[0].name(), "model/w");
  EXPECT_EQ(made[1].handle().node(), made[0].handle().node());
  std::vector<Output> dequeued = seen.dequeue(root);
  Operation init = global_variables_initializer(root);
  ASSERT_EQ(absl::OkStatus(), root.status());
  ClientSession session(root);
  ASSERT_EQ(absl::OkStatus(), session.Run({}, {}, {init}, nullptr));
  ASSERT_EQ(absl::OkStatus(), session.Run({}, {}, {(*train)[0].op()}, nullptr));
  ASSERT_EQ(absl::OkStatus(), session.Run({}, {}, {(*evaluate)[0].op()}, nullptr));
  std::vector<Tensor> out;
  ASSERT_EQ(absl::OkStatus(), session.Run({dequeued[0]}, &out));
  EXPECT_EQ(out[0].DebugString(), "[[4. 5.]]");
}

// A stateless op in the body whose value nothing uses is pruned: the loop
// costs the same with it as without it. Stateful ops (the outfeed) still
// run in every iteration though no loop value uses them.
TEST_F(LoopsTest, DeadOpsInTheBodyArePrunedSideEffectsRun) {
  Configure(1);
  auto run = [&](bool with_dead_op) -> std::pair<uint64_t, std::vector<float>> {
    Scope root = Scope::NewRootScope();
    Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
    ipu::IPUOutfeedQueue outfeed(with_dead_op ? "dead_op_counts" : "plain_counts");
    auto r = ipu::ipu_compiler::compile(
        ipu, [&](const Scope& s, const std::vector<Output>&) {
          auto out = ipu::loops::repeat(
              s, 4,
              [&](const Scope& b, const std::vector<Output>& c,
                  const std::vector<Output>&) {
                Output next = ops::Add(b, c[0], 1.f);
                outfeed.enqueue(b, {next});
                if (with_dead_op) {
                  Output big = ops::Fill(b, ops::Const(b, {128, 128}), 0.5f);
                  ops::MatMul(b, big, big);  // nothing reads it
                }
                return std::vector<Output>{next};
              },
              {ops::Const(s, 0.f)});
          return out.ok() ? *out : std::vector<Output>{};
        }, {});
    EXPECT_TRUE(r.ok()) << r.status();
    std::vector<Output> dequeued = outfeed.dequeue(root);
    testing::ProfilingSession session(root);
    std::vector<Tensor> out;
    absl::Status s = session.Run({(*r)[0]}, &out);
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].data<float>()[0], 4.f);
    const uint64_t cycles = session.last_profile().clusters.at(0).cycles;
    s = session.Run({dequeued[0]}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return {cycles, Floats(out[0])};
  };
  auto [plain_cycles, plain_counts] = run(false);
  auto [dead_cycles, dead_counts] = run(true);
  EXPECT_THAT(plain_counts, ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(dead_counts, ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(dead_cycles, plain_cycles);
}

TEST_F(LoopsTest, BadLoopsAreErrors) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto body = [](const Scope& b, const std::vector<Output>& c,
                 const std::vector<Output>&) {
    Output host = ops::Neg(ipu::scopes::outside_compilation_scope(b), c[0]);
    return std::vector<Output>{host};
  };
  // outside_compilation_scope is legal only in a compiled function, and
  // there not inside a loop.
  absl::Status oc_status;
  auto compiled = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        auto oc = ipu::loops::repeat(s, 2, body, {ops::Const(s, 1.f)});
        oc_status = oc.status();
        return std::vector<Output>{};
      });
  (void)compiled;
  EXPECT_EQ(oc_status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(oc_status.message(),
              HasSubstr("outside compilation inside a loops::repeat body is "
                        "not supported"));

  Scope root2 = Scope::NewRootScope();
  auto on_cpu = ipu::loops::repeat(root2, 2, body, {});
  EXPECT_THAT(on_cpu.status().message(), HasSubstr("call it under ipu_scope"));
  auto zero = ipu::loops::repeat(ipu::scopes::ipu_scope(root2, "/device:IPU:0"),
                                 0, body, {});
  EXPECT_THAT(zero.status().message(), HasSubstr("at least one iteration"));

  auto ragged = ipu::IPUInfeedQueue::Create(Range(10).Batch(3, false), "ragged");
  EXPECT_EQ(ragged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ragged.status().message(),
              HasSubstr("is not fully defined. If using tf.Dataset.batch, set "
                        "`drop_remainder=True`."));
}

}  // namespace
}  // namespace tensorflow_ipu
