// A CPU-only program: the session runs graphs on the host, and a node that
// asks for an IPU gets the error that no IPU system is configured, because
// the program links no IPU path (and so no simulator).
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/runtime/ipu_support.h"

namespace tensorflow_ipu {
namespace {

TEST(CpuOnlyTest, TheProgramLinksNoIpuPath) {
  EXPECT_EQ(GetIpuSupport(), nullptr);
}

TEST(CpuOnlyTest, HostGraphsRunAndReportNoIpuCost) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT,
                            ops::Placeholder::Shape({2}));
  auto sum = ops::Add(root, a, a);
  ClientSession session(root);
  std::vector<Tensor> out;
  RunMetadata metadata;
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  absl::Status s = session.Run(options, {{a, {1.f, 2.f}}}, {sum}, {}, &out,
                               &metadata);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].DebugString(), "[2. 4.]");
  EXPECT_TRUE(metadata.ipu_profile.clusters.empty());
  // Traced: the Add ran and was timed (the fed placeholder did not run).
  ASSERT_EQ(metadata.step_stats.node_stats.size(), 1u);
  EXPECT_EQ(metadata.step_stats.node_stats[0].node_name, sum.node()->name());
  EXPECT_EQ(metadata.step_stats.node_stats[0].op, "Add");
}

TEST(CpuOnlyTest, ANodeOnAnIpuSaysNoIpuSystemIsConfigured) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithDevice("cpu").WithOpName("a"), DT_FLOAT,
                            ops::Placeholder::Shape({2}));
  auto neg = ops::Neg(root.WithDevice("/device:IPU:0").WithOpName("neg"), a);
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({{a, {1.f, 2.f}}}, {neg}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("'neg'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("configure_ipu_system"), std::string::npos) << s;
  // The session still runs host graphs.
  s = session.Run({{a, {1.f, 2.f}}}, {a}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].DebugString(), "[1. 2.]");
}

}  // namespace
}  // namespace tensorflow_ipu
