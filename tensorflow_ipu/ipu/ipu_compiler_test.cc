// compile(): its return conventions and errors, and that compiled functions
// run on the simulated IPU.
#include "tensorflow_ipu/ipu/ipu_compiler.h"

#include <cstdlib>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/ipu/scopes.h"

namespace tensorflow_ipu {
namespace ipu {
namespace {

class IpuCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("TF_POPLAR_FLAGS");
    IpuSystem::Get().Reset();
  }
  void TearDown() override { IpuSystem::Get().Reset(); }
};

std::vector<Output> Tutorial(const Scope& s, const std::vector<Output>& in) {
  auto o1 = ops::Add(s, in[0], in[1]);
  auto o2 = ops::Add(s, in[0], in[2]);
  return {ops::Add(s, o1, o2)};
}

TEST_F(IpuCompilerTest, TutorialRunsOnTheIpu) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  {
    absl::Status call_status = cfg.configure_ipu_system();
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("cpu");
  auto shape = ops::Placeholder::Shape({2});
  auto pa = ops::Placeholder(cpu.WithOpName("a"), DT_FLOAT, shape);
  auto pb = ops::Placeholder(cpu.WithOpName("b"), DT_FLOAT, shape);
  auto pc = ops::Placeholder(cpu.WithOpName("c"), DT_FLOAT, shape);
  auto r = ipu_compiler::compile(scopes::ipu_scope(root, "/device:IPU:0"),
                                 Tutorial, {pa, pb, pc});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_TRUE((*r)[0].node()->def().attr().contains(kCompileClusterAttr));
  ClientSession session(root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({{pa, {1.f, 1.f}}, {pb, {0.f, 1.f}}, {pc, {1.f, 5.f}}},
                          {(*r)[0]}, &out)
                  .ok());
  EXPECT_EQ(out[0].DebugString(), "[3. 8.]");
}

TEST_F(IpuCompilerTest, NotOnAnIpuScopeIsTheVendorsError) {
  Scope root = Scope::NewRootScope();
  auto pa = ops::Placeholder(root.WithOpName("a"), DT_FLOAT,
                             ops::Placeholder::Shape({2}));
  auto r = ipu_compiler::compile(root, Tutorial, {pa, pa, pa});
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(
                "A computation has been compiled, however it was not placed "
                "on an IPU device"),
            std::string::npos)
      << r.status();
}

TEST_F(IpuCompilerTest, DynamicInputShapeNamesTheTensor) {
  Scope root = Scope::NewRootScope();
  auto pa = ops::Placeholder(root.WithDevice("cpu").WithOpName("a"), DT_FLOAT,
                             ops::Placeholder::Shape({-1, 2}));
  auto r = ipu_compiler::compile(scopes::ipu_scope(root, "/device:IPU:0"),
                                 Tutorial, {pa, pa, pa});
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("tensor 'a:0' has shape [?,2]"),
            std::string::npos)
      << r.status();
}

// As the vendor's compile returns an op for a function without outputs:
// one element, a NoOp of the cluster that runs the function's side effects.
TEST_F(IpuCompilerTest, FunctionWithoutOutputsReturnsARunnableOp) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  {
    absl::Status call_status = cfg.configure_ipu_system();
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  Scope root = Scope::NewRootScope();
  auto pa = ops::Placeholder(root.WithDevice("cpu").WithOpName("a"), DT_FLOAT,
                             ops::Placeholder::Shape({2}));
  Scope ipu = scopes::ipu_scope(root, "/device:IPU:0");
  Variable w = *get_variable(ipu, "w", {2}, DT_FLOAT, initializers::Zeros());
  Output neg;
  auto r = ipu_compiler::compile(
      ipu,
      [&](const Scope& s, const std::vector<Output>& in) {
        neg = ops::Neg(s, in[0]);
        w.assign(s, ops::Square(s, neg));
        return std::vector<Output>{};
      },
      {pa});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 1u);
  const Node* op = (*r)[0].node();
  EXPECT_EQ(op->op(), "NoOp");
  EXPECT_EQ(op->num_outputs(), 0);
  EXPECT_EQ(op->requested_device().ToString(), "/device:IPU:0");
  EXPECT_EQ(op->def().attr().at(kCompileClusterAttr).s(),
            neg.node()->def().attr().at(kCompileClusterAttr).s());
  // A control input on the side effect, which reaches what it needs.
  std::vector<std::string> deps;
  for (const Node* c : op->control_inputs()) deps.push_back(c->op());
  EXPECT_EQ(deps, (std::vector<std::string>{"AssignVariableOp"}));

  // Run as a target, it runs the cluster on the IPU: a[2] streams in.
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({}, {}, {w.initializer()}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  RunMetadata metadata;
  s = session.Run(RunOptions(), {{pa, {1.f, 2.f}}}, {}, {(*r)[0].op()}, &out,
                  &metadata);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(out.empty());
  const IpuRunProfile& profile = metadata.ipu_profile;
  ASSERT_EQ(profile.clusters.size(), 1u);
  EXPECT_EQ(profile.clusters[0].host_bytes_to_device, 8u);
  EXPECT_EQ(profile.clusters[0].host_bytes_from_device, 0u);
  EXPECT_GT(profile.clusters[0].cycles, 0u);
  s = session.Run({w.value(root)}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].DebugString(), "[1. 4.]");

  // It has no value: fetching it says so.
  s = session.Run({{pa, {1.f, 2.f}}}, {(*r)[0]}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("has 0 output(s)"), std::string::npos) << s;
}

// A function without outputs runs only what its side effects need, as a
// TensorFlow function does: a stateless op whose value nothing uses is dead.
// Here the dead op is the only reader of b, so b is not even streamed in;
// running the function with and without it costs the same.
TEST_F(IpuCompilerTest, DeadStatelessOpsOfAFunctionWithoutOutputsDoNotRun) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  {
    absl::Status call_status = cfg.configure_ipu_system();
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  IpuClusterProfile with_dead_op, without;
  for (bool dead_op : {true, false}) {
    SCOPED_TRACE(dead_op ? "with the dead op" : "without it");
    Scope root = Scope::NewRootScope();
    Scope cpu = root.WithDevice("cpu");
    auto pa = ops::Placeholder(cpu.WithOpName("a"), DT_FLOAT,
                               ops::Placeholder::Shape({2}));
    auto pb = ops::Placeholder(cpu.WithOpName("b"), DT_FLOAT,
                               ops::Placeholder::Shape({64, 64}));
    Scope ipu = scopes::ipu_scope(root, "/device:IPU:0");
    Variable w = *get_variable(ipu, "w", {2}, DT_FLOAT, initializers::Zeros());
    Output dead;
    auto r = ipu_compiler::compile(
        ipu,
        [&](const Scope& s, const std::vector<Output>& in) {
          w.assign_add(s, in[0]);
          if (dead_op) dead = ops::Exp(s, ops::MatMul(s, in[1], in[1]));
          return std::vector<Output>{};
        },
        {pa, pb});
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<std::string> deps;
    for (const Node* c : (*r)[0].node()->control_inputs()) deps.push_back(c->op());
    EXPECT_EQ(deps, (std::vector<std::string>{"AssignAddVariableOp"}));

    ClientSession session(root);
    absl::Status s = session.Run({}, {}, {w.initializer()}, nullptr);
    ASSERT_TRUE(s.ok()) << s;
    Tensor b(DT_FLOAT, TensorShape({64, 64}));
    for (int64_t i = 0; i < b.NumElements(); ++i) b.data<float>()[i] = 1.f;
    RunMetadata metadata;
    for (int step = 0; step < 2; ++step) {
      s = session.Run(RunOptions(), {{pa, {1.f, 2.f}}, {pb, b}}, {},
                      {(*r)[0].op()}, nullptr, &metadata);
      ASSERT_TRUE(s.ok()) << s;
    }
    const IpuRunProfile& profile = metadata.ipu_profile;
    ASSERT_EQ(profile.clusters.size(), 1u);
    (dead_op ? with_dead_op : without) = profile.clusters[0];
    // The side effect ran in each run.
    std::vector<Tensor> out;
    s = session.Run({w.value(root)}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].DebugString(), "[2. 4.]");
    // The dead op's value can still be fetched: it runs when asked for.
    if (dead_op) {
      s = session.Run({{pb, b}}, {dead}, &out);
      ASSERT_TRUE(s.ok()) << s;
      EXPECT_EQ(out[0].shape(), TensorShape({64, 64}));
    }
  }
  // Only a[2] streams in: b[64,64] (16 KiB) fed nothing but the dead op.
  EXPECT_EQ(with_dead_op.host_bytes_to_device, 8u);
  EXPECT_EQ(with_dead_op.compute_cycles, without.compute_cycles);
  EXPECT_EQ(with_dead_op.cycles, without.cycles);
  EXPECT_EQ(with_dead_op.max_tile_bytes, without.max_tile_bytes);
}

// The NoOp does not hide the function's values: fetched with it, they come
// from the same cluster run.
TEST_F(IpuCompilerTest, TheRunnableOpAndAValueOfTheFunctionTogether) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  {
    absl::Status call_status = cfg.configure_ipu_system();
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  Scope root = Scope::NewRootScope();
  auto pa = ops::Placeholder(root.WithDevice("cpu").WithOpName("a"), DT_FLOAT,
                             ops::Placeholder::Shape({2}));
  Output neg;
  auto r = ipu_compiler::compile(
      scopes::ipu_scope(root, "/device:IPU:0"),
      [&](const Scope& s, const std::vector<Output>& in) {
        neg = ops::Neg(s, in[0]);
        return std::vector<Output>{};
      },
      {pa});
  ASSERT_TRUE(r.ok()) << r.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  RunMetadata metadata;
  absl::Status s = session.Run(RunOptions(), {{pa, {1.f, 2.f}}}, {neg},
                               {(*r)[0].op()}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].DebugString(), "[-1. -2.]");
  EXPECT_EQ(metadata.ipu_profile.clusters.size(), 1u);
}

}  // namespace
}  // namespace ipu
}  // namespace tensorflow_ipu
