// Tests of the cluster passes: IR in, IR (or an error) out.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/compiler/gradient_accumulation.h"
#include "tensorflow_ipu/compiler/inter_ipu_copy_insertion.h"
#include "tensorflow_ipu/compiler/shard_assignment.h"
#include "tensorflow_ipu/compiler/static_shape_check.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

NodeDef Def(const std::string& name, const std::string& op, int shard = -1) {
  NodeDef d;
  d.set_name(name);
  d.set_op(op);
  if (shard >= 0) (*d.mutable_attr())[kShardAttr] = MakeAttrValue(int64_t{shard});
  return d;
}

// a, b -> add (shard s1) -> neg (shard s2): the tutorial's shape of graph.
ClusterIr TwoShardIr(int s1, int s2) {
  ClusterIr ir;
  ir.name = "cluster_0";
  int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));
  int b = ir.AddArg("b:0", DT_FLOAT, TensorShape({2}));
  int add = ir.AddOp(Def("add", "AddV2", s1), {{a, 0}, {b, 0}}, {DT_FLOAT},
                     {TensorShape({2})});
  int neg = ir.AddOp(Def("neg", "Neg", s2), {{add, 0}}, {DT_FLOAT},
                     {TensorShape({2})});
  int sq = ir.AddOp(Def("sq", "Square"), {{neg, 0}}, {DT_FLOAT},
                    {TensorShape({2})});
  ir.results = {{sq, 0}};
  return ir;
}

TEST(StaticShapeCheckTest, DynamicDimensionNamesTheTensor) {
  ClusterIr ir;
  ir.AddArg("x:0", DT_FLOAT, TensorShape({-1, 2}));
  StaticShapeCheck pass;
  absl::StatusOr<bool> r = pass.Run(&ir);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("'x:0' is [?,2]"), std::string::npos)
      << r.status();
}

TEST(StaticShapeCheckTest, StaticShapesPass) {
  ClusterIr ir = TwoShardIr(0, 1);
  StaticShapeCheck pass;
  EXPECT_EQ(pass.Run(&ir).value(), false);
}

TEST(ShardAssignmentTest, UnshardedOpsFollowTheirInputsAndArgsTheirReaders) {
  ClusterIr ir = TwoShardIr(1, 3);
  ShardAssignment pass(4);
  {
    absl::Status status = pass.Run(&ir).status();
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(ir.ops[0].shard, 1);  // a: read on shard 1
  EXPECT_EQ(ir.ops[1].shard, 1);  // b
  EXPECT_EQ(ir.ops[2].shard, 1);  // add
  EXPECT_EQ(ir.ops[3].shard, 3);  // neg
  EXPECT_EQ(ir.ops[4].shard, 3);  // sq takes its input's shard
}

TEST(ShardAssignmentTest, ShardBeyondTheDeviceNamesOpAndCount) {
  ClusterIr ir = TwoShardIr(0, 2);
  ShardAssignment pass(2);
  absl::Status s = pass.Run(&ir).status();
  ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Op 'neg' (Neg) is on shard 2"), std::string::npos)
      << s;
  EXPECT_NE(s.message().find("has 2 IPU(s)"), std::string::npos) << s;
}

TEST(ShardAssignmentTest, ShardsMustDivideTheIpus) {
  // Shards 0..2 round up to 4, which does not divide 6.
  ClusterIr ir = TwoShardIr(0, 2);
  absl::Status s = ShardAssignment(6).Run(&ir).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(s.message(),
            "Trying to compile a graph for an IPU device with 6 IPUs and 4 shards. The "
            "number of shards needs to divide the number of IPUs.");
}

TEST(ShardAssignmentTest, TheOtherIpusAreReplicas) {
  // 3 shards round up to 4: 8 IPUs run 2 replicas.
  ClusterIr ir = TwoShardIr(0, 2);
  absl::Status s = ShardAssignment(8).Run(&ir).status();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(ir.replication_factor, 2);
  ClusterIr unsharded = TwoShardIr(-1, -1);
  s = ShardAssignment(4).Run(&unsharded).status();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(unsharded.replication_factor, 4);
}

TEST(ShardAssignmentTest, OneShardOnOneIpu) {
  ClusterIr ir = TwoShardIr(-1, -1);
  ShardAssignment pass(1);
  {
    absl::Status status = pass.Run(&ir).status();
    ASSERT_TRUE(status.ok()) << status;
  }
  for (const ClusterOp& op : ir.ops) EXPECT_EQ(op.shard, 0);
}

TEST(InterIpuCopyInsertionTest, CopiesValuesThatCrossShards) {
  ClusterIr ir = TwoShardIr(0, 1);
  {
    absl::Status status = ShardAssignment(2).Run(&ir).status();
    ASSERT_TRUE(status.ok()) << status;
  }
  InterIpuCopyInsertion pass;
  ASSERT_EQ(pass.Run(&ir).value(), true);
  EXPECT_EQ(ir.ToString(),
            "cluster cluster_0\n"
            "%0 a:0 = _Arg() -> float[2] shard=0\n"
            "%1 b:0 = _Arg() -> float[2] shard=0\n"
            "%2 add = AddV2(%0:0, %1:0) -> float[2] shard=0\n"
            "%3 add/copy_0_to_ipu_1 = _InterIpuCopy(%2:0) -> float[2] shard=1\n"
            "%4 neg = Neg(%3:0) -> float[2] shard=1\n"
            "%5 sq = Square(%4:0) -> float[2] shard=1\n"
            "results (%5:0)\n");
  EXPECT_EQ(ir.args, (std::vector<int>{0, 1}));
}

TEST(InterIpuCopyInsertionTest, NothingToDoOnOneShard) {
  ClusterIr ir = TwoShardIr(0, 0);
  {
    absl::Status status = ShardAssignment(1).Run(&ir).status();
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(InterIpuCopyInsertion().Run(&ir).value(), false);
}

// A loop of `iterations` whose ops are, in order: grad (body), update
// (marked N), after_update (reads update), loss (body, reads grad).
ClusterIr AccumulationIr(int64_t iterations, int64_t n, bool in_loop = true) {
  auto def = [&](const std::string& name, bool marked) {
    NodeDef d = Def(name, "Neg");
    if (in_loop) {
      (*d.mutable_attr())[kLoopAttr] = MakeAttrValue(std::string("loop_0"));
      (*d.mutable_attr())[kLoopCountAttr] = MakeAttrValue(iterations);
    }
    if (marked) (*d.mutable_attr())[kGradientAccumulationAttr] = MakeAttrValue(n);
    return d;
  };
  ClusterIr ir;
  ir.name = "cluster_0";
  int x = ir.AddArg("x:0", DT_FLOAT, TensorShape({2}));
  int grad = ir.AddOp(def("grad", false), {{x, 0}}, {DT_FLOAT}, {TensorShape({2})});
  int update = ir.AddOp(def("update", true), {{grad, 0}}, {DT_FLOAT}, {TensorShape({2})});
  ir.AddOp(def("after_update", false), {{update, 0}}, {DT_FLOAT}, {TensorShape({2})});
  ir.AddOp(def("loss", false), {{grad, 0}}, {DT_FLOAT}, {TensorShape({2})});
  return ir;
}

TEST(GradientAccumulationTest, UpdateAndItsDependentsMoveAfterTheBody) {
  ClusterIr ir = AccumulationIr(8, 4);
  absl::StatusOr<bool> changed = GradientAccumulation().Run(&ir);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  std::vector<std::string> names;
  std::vector<int64_t> counts;
  for (const ClusterOp& op : ir.ops) {
    names.push_back(op.name());
    counts.push_back(op.accumulation_count);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"x:0", "grad", "loss", "update", "after_update"}));
  EXPECT_EQ(counts, (std::vector<int64_t>{0, 0, 0, 4, 4}));
  EXPECT_EQ(ir.ops[4].inputs[0].op, 3);  // inputs follow the new order
}

// `waits` has a control dependency on the update and reads the body's
// `grad`; `reads_both` reads `update` and, with `mixed`, `waits`.
ClusterIr WaitingIr(bool mixed, bool pipelined = false) {
  ClusterIr ir = AccumulationIr(8, 4);
  NodeDef waits = Def("waits", "Neg");
  (*waits.mutable_attr())[kLoopAttr] = MakeAttrValue(std::string("loop_0"));
  (*waits.mutable_attr())[kLoopCountAttr] = MakeAttrValue(int64_t{8});
  if (pipelined) (*waits.mutable_attr())[kPipelineDepthAttr] = MakeAttrValue(int64_t{4});
  NodeDef reads_both = waits;
  reads_both.set_name("reads_both");
  int w = ir.AddOp(waits, {{1, 0}}, {DT_FLOAT}, {TensorShape({2})});
  ir.ops[w].control_inputs.push_back(2);  // update
  std::vector<ValueRef> in = {{2, 0}};
  if (mixed) in.push_back({w, 0});
  ir.AddOp(reads_both, in, {DT_FLOAT}, {TensorShape({2})});
  return ir;
}

// A control dependency on the update orders an op after it without making
// it run less often: it runs every iteration, after the update.
TEST(GradientAccumulationTest, OpsThatOnlyWaitForTheUpdateFollowItEveryIteration) {
  ClusterIr ir = WaitingIr(/*mixed=*/false);
  ASSERT_EQ(absl::OkStatus(), GradientAccumulation().Run(&ir).status());
  std::vector<std::string> names;
  std::vector<int64_t> counts;
  std::vector<bool> after;
  for (const ClusterOp& op : ir.ops) {
    names.push_back(op.name());
    counts.push_back(op.accumulation_count);
    after.push_back(op.after_update);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"x:0", "grad", "loss", "update", "after_update",
                                             "reads_both", "waits"}));
  EXPECT_EQ(counts, (std::vector<int64_t>{0, 0, 0, 4, 4, 4, 0}));
  EXPECT_EQ(after, (std::vector<bool>{false, false, false, false, false, false, true}));
}

TEST(GradientAccumulationTest, AnOpCannotBothReadTheUpdateAndFollowIt) {
  ClusterIr mixed = WaitingIr(/*mixed=*/true);
  absl::Status s = GradientAccumulation().Run(&mixed).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("Op 'reads_both' (Neg) belongs to the gradient accumulation "
                             "update, which runs once every 4 mini batches (through 'update'), "
                             "but depends on 'waits' (Neg)"),
            std::string::npos)
      << s;
  ClusterIr pipelined = WaitingIr(/*mixed=*/false, /*pipelined=*/true);
  s = GradientAccumulation().Run(&pipelined).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("Op 'waits' (Neg) in a pipeline waits for the pipeline's weight "
                             "update (through 'update' (Neg))"),
            std::string::npos)
      << s;
}

TEST(GradientAccumulationTest, TheVerifiersErrors) {
  ClusterIr odd = AccumulationIr(6, 4);
  absl::Status s = GradientAccumulation().Run(&odd).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("('update') with 4 number of mini batches inside a loop with 6 "
                             "iterations"),
            std::string::npos)
      << s;
  ClusterIr outside = AccumulationIr(1, 2, /*in_loop=*/false);
  s = GradientAccumulation().Run(&outside).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("with 2 number of mini batches which is not inside a training "
                             "loop"),
            std::string::npos)
      << s;
  ClusterIr none = TwoShardIr(0, 0);
  EXPECT_EQ(GradientAccumulation().Run(&none).value(), false);
}

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
