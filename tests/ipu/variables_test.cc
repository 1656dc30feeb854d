// Resource variables on the simulated IPU: they live in device memory
// between runs, move over the host link only when someone on the host needs
// them, survive engine switches, and reference variables are refused with
// TensorFlow's error.
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/logging.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IpuTest;

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

using VariablesOnIpuTest = IpuTest;

TEST_F(VariablesOnIpuTest, VariableStaysOnTheDeviceBetweenRuns) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  VariableScope vs(ipu, "vs");
  Variable w = *vs.get_variable("w", {2}, DT_FLOAT, initializers::Constant(4.0));
  // w <- w * 0.5, on the IPU.
  Operation halve = w.assign(ipu, ops::Mul(ipu, w.value(ipu), 0.5f));
  Output read = w.value(root);
  Operation init = global_variables_initializer(root);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(w.handle().node()->def().device(), "/device:IPU:0");

  testing::ProfilingSession session(root);
  ASSERT_TRUE(session.Run({}, {}, {init}, nullptr).ok())
      << session.Run({}, {}, {init}, nullptr);
  {
    absl::Status call_status = session.Run({}, {}, {halve}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  // The first step brings the initial value to the training engine.
  IpuRunProfile first = session.last_profile();
  ASSERT_EQ(first.clusters.size(), 1u);
  EXPECT_EQ(first.clusters[0].variable_bytes_restored, 8u);

  for (int step = 0; step < 3; ++step) {
    {
      absl::Status call_status = session.Run({}, {}, {halve}, nullptr);
      ASSERT_TRUE(call_status.ok()) << call_status;
    }
    IpuRunProfile p = session.last_profile();
    ASSERT_EQ(p.clusters.size(), 1u);
    EXPECT_EQ(p.clusters[0].variable_bytes_restored, 0u) << "step " << step;
    EXPECT_EQ(p.clusters[0].variable_bytes_saved, 0u);
    EXPECT_EQ(p.clusters[0].host_bytes_to_device, 0u);
    EXPECT_EQ(p.clusters[0].host_bytes_from_device, 0u);
    EXPECT_EQ(p.engine_switches, 0u);
  }
  // Fetching reads the device's copy (on the host: no engine for a read).
  std::vector<Tensor> out;
  {
    absl::Status call_status = session.Run({read}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_TRUE(session.last_profile().clusters.empty());
  EXPECT_THAT(Floats(out[0]), ElementsAre(0.25f, 0.25f));  // 4 / 2^4

  // Still resident after the fetch.
  {
    absl::Status call_status = session.Run({}, {}, {halve}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(session.last_profile().clusters[0].variable_bytes_restored,
            0u);
  // A host assignment makes the device copy stale: it is written again.
  Operation reset = w.assign(root.WithDevice("cpu"), {8.f, 16.f});
  {
    absl::Status call_status = session.Run({}, {}, {reset}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  {
    absl::Status call_status = session.Run({}, {}, {halve}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(session.last_profile().clusters[0].variable_bytes_restored,
            8u);
  {
    absl::Status call_status = session.Run({read}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_THAT(Floats(out[0]), ElementsAre(4.f, 8.f));
}

// A read of a variable is a snapshot: a later write in the same cluster
// does not change it. The compiler reads variables in place when nothing
// writes them while the value is in use, and copies them when something
// does; both must give the value at the time of the read.
TEST_F(VariablesOnIpuTest, ReadsKeepTheirValueAcrossLaterWrites) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Variable v = *get_variable(ipu, "v", {2}, DT_FLOAT,
                             initializers::Value(Tensor::Vector<float>({1, 2})));
  Variable u = *get_variable(ipu, "u", {2}, DT_FLOAT,
                             initializers::Value(Tensor::Vector<float>({5, 7})));
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        // v: read, then written, then the read is used.
        Output before = v.value(s);
        Operation add = v.assign_add(s.WithControlDependencies({before.op()}),
                                     ops::Const(s, {10.f, 10.f}));
        Output doubled = ops::Mul(s.WithControlDependencies({add}), before, 2.f);
        Output after = v.value(s.WithControlDependencies({add}));
        // u: read and used before it is written (read in place).
        Output u_read = u.value(s);
        Output u_sum = ops::Sum(s, u_read, {0});
        Operation u_sub = u.assign_sub(s.WithControlDependencies({u_sum.op()}),
                                       ops::Const(s, {1.f, 1.f}));
        Output u_after = u.value(s.WithControlDependencies({u_sub}));
        return std::vector<Output>{doubled, after, u_sum, u_after};
      }, {});
  ASSERT_TRUE(r.ok()) << r.status();
  testing::ProfilingSession session(root);
  {
    absl::Status call_status = session.Run({}, {}, {global_variables_initializer(root)}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  std::vector<Tensor> out;
  absl::Status s = session.Run(*r, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(Floats(out[0]), ElementsAre(2, 4));    // 2 * the value read
  EXPECT_THAT(Floats(out[1]), ElementsAre(11, 12));  // read after the write
  EXPECT_EQ(out[2].data<float>()[0], 12.f);
  EXPECT_THAT(Floats(out[3]), ElementsAre(4, 6));
  // Again: the values move on from the new state.
  {
    absl::Status call_status = session.Run(*r, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_THAT(Floats(out[0]), ElementsAre(22, 24));
  EXPECT_THAT(Floats(out[1]), ElementsAre(21, 22));
  EXPECT_EQ(out[2].data<float>()[0], 10.f);
  EXPECT_THAT(Floats(out[3]), ElementsAre(3, 5));
}

// A read before an on-device loop, used in every iteration while the body
// writes the variable: each iteration sees the value read before the loop.
TEST_F(VariablesOnIpuTest, ReadBeforeALoopKeepsItsValueInEveryIteration) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Variable v = *get_variable(ipu, "v", {}, DT_FLOAT, initializers::Constant(3.0));
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        Output start = v.value(s);
        auto out = ipu::loops::repeat(
            s, 4,
            [&](const Scope& b, const std::vector<Output>& c, const std::vector<Output>&) {
              Output next = ops::Add(b, c[0], start);
              v.assign_add(b.WithControlDependencies({next.op()}), ops::Const(b, 100.f));
              return std::vector<Output>{next};
            },
            {ops::Const(s, 0.f)});
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(r.ok()) << r.status();
  testing::ProfilingSession session(root);
  {
    absl::Status call_status = session.Run({}, {}, {global_variables_initializer(root)}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  std::vector<Tensor> out;
  absl::Status s = session.Run({(*r)[0], v.value(root)}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].data<float>()[0], 12.f);   // 4 x 3
  EXPECT_EQ(out[1].data<float>()[0], 403.f);  // 3 + 4 x 100
}

TEST_F(VariablesOnIpuTest, UninitializedVariableOnTheIpuIsAnError) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Variable w = *get_variable(ipu, "w", {2}, DT_FLOAT, initializers::Zeros());
  Operation inc = w.assign_add(ipu, {1.f, 1.f});
  testing::ProfilingSession session(root);
  absl::Status s = session.Run({}, {}, {inc}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("uninitialized value w"));
  // The session still works once it is initialised.
  {
    absl::Status call_status = session.Run({}, {}, {w.initializer()}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  {
    absl::Status call_status = session.Run({}, {}, {inc}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  std::vector<Tensor> out;
  {
    absl::Status call_status = session.Run({w.value(root)}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_THAT(Floats(out[0]), ElementsAre(1.f, 1.f));
}

TEST_F(VariablesOnIpuTest, ReferenceVariableOnTheIpuFailsWithTensorFlowsError) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  VariableScope vs(ipu, "Logits", {.use_resource = false});
  Variable b = *vs.get_variable("biases", {2}, DT_FLOAT, initializers::Zeros());
  testing::ProfilingSession session(root);
  absl::Status s = session.Run({}, {}, {b.initializer()}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Cannot assign a device for operation 'Logits/biases': "
                        "Could not satisfy explicit device specification "
                        "'/device:IPU:0' because no supported kernel for IPU "
                        "devices is available.\n"
                        "Colocation Debug Info:\n"
                        "Colocation group had the following types and devices:\n"
                        "Assign: CPU\n"
                        "VariableV2: CPU"));
}

TEST_F(VariablesOnIpuTest, VariablesMoveBetweenEnginesOnASwitchAndWarnOnce) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Variable w = *get_variable(ipu, "w", {3}, DT_FLOAT, initializers::Ones());
  // Two compiled functions: two engines sharing the variable.
  auto double_it = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        w.assign(s, ops::Mul(s, w.value(s), 2.f));
        return std::vector<Output>{};
      }, {});
  auto add_one = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) {
        w.assign_add(s, {1.f, 1.f, 1.f});
        return std::vector<Output>{};
      }, {});
  ASSERT_TRUE(double_it.ok() && add_one.ok()) << root.status();
  testing::ProfilingSession session(root);
  logging::ScopedLogCapture log;
  {
    absl::Status call_status = session.Run({}, {}, {w.initializer()}, nullptr);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  for (int step = 0; step < 3; ++step) {
    {
      absl::Status call_status = session.Run({}, {}, {(*double_it)[0].op()}, nullptr);
      ASSERT_TRUE(call_status.ok()) << call_status;
    }
    {
      absl::Status call_status = session.Run({}, {}, {(*add_one)[0].op()}, nullptr);
      ASSERT_TRUE(call_status.ok()) << call_status;
    }
  }
  IpuRunProfile p = session.last_profile();
  ASSERT_EQ(p.clusters.size(), 1u);
  EXPECT_EQ(p.engine_switches, 1u);
  // Saved from the other engine, restored into this one.
  EXPECT_EQ(p.clusters[0].variable_bytes_saved, 12u);
  EXPECT_EQ(p.clusters[0].variable_bytes_restored, 12u);
  EXPECT_GT(p.clusters[0].variable_seconds, 0);
  std::vector<Tensor> out;
  {
    absl::Status call_status = session.Run({w.value(root)}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  // ((1*2+1)*2+1)*2+1 = 15
  EXPECT_THAT(Floats(out[0]), ElementsAre(15.f, 15.f, 15.f));
  int warnings = 0;
  for (const std::string& m : log.messages()) {
    warnings += m.find("keep alternating") != std::string::npos;
  }
  EXPECT_EQ(warnings, 1);
}

TEST_F(VariablesOnIpuTest, ConcurrentRunsLoseNoUpdate) {
  Configure(1);
  for (bool on_ipu : {false, true}) {
    SCOPED_TRACE(on_ipu ? "IPU" : "CPU");
    Scope root = Scope::NewRootScope();
    Scope s = on_ipu ? ipu::scopes::ipu_scope(root, "/device:IPU:0") : root;
    Variable n = *get_variable(s, "n", {}, DT_INT32, initializers::Zeros());
    Operation inc = n.assign_add(s, 1);
    testing::ProfilingSession session(root);
    {
      absl::Status call_status = session.Run({}, {}, {n.initializer()}, nullptr);
      ASSERT_TRUE(call_status.ok()) << call_status;
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 1000; ++i) {
          {
            absl::Status call_status = session.Run({}, {}, {inc}, nullptr);
            ASSERT_TRUE(call_status.ok()) << call_status;
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
    std::vector<Tensor> out;
    {
      absl::Status call_status = session.Run({n.value(root)}, &out);
      ASSERT_TRUE(call_status.ok()) << call_status;
    }
    EXPECT_EQ(out[0].data<int32_t>()[0], 8000);
  }
}

}  // namespace
}  // namespace tensorflow_ipu
