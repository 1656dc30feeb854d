// PipelineFormation: which unit each op of a pipelined loop joins, and the
// errors for values that flow backwards in time and variables shared by
// stages on different IPUs.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/compiler/pipeline_formation.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

// Builds the loop of a two-stage Grouped pipeline of depth 4.
class PipelineIr {
 public:
  PipelineIr() { ir.name = "cluster_0"; }

  // An op of the loop; stage -1: not built by a stage function.
  int Op(const std::string& name, const std::string& kind, std::vector<ValueRef> inputs,
         int stage = -1, bool backward = false, int ipu = -1,
         DataType out = DT_FLOAT) {
    NodeDef d;
    d.set_name(name);
    d.set_op(kind);
    auto& a = *d.mutable_attr();
    a[kLoopAttr] = MakeAttrValue(std::string("loop_0"));
    a[kLoopCountAttr] = MakeAttrValue(int64_t{8});
    if (kind != kInterIpuCopyOp) {
      a[kPipelineDepthAttr] = MakeAttrValue(int64_t{4});
      a[kPipelineStagesAttr] = MakeAttrValue(int64_t{2});
      a[kPipelineScheduleAttr] = MakeAttrValue(int64_t{0});
    }
    if (stage >= 0) a[kPipelineStageAttr] = MakeAttrValue(int64_t{stage});
    if (backward) a[kPipelineBackwardAttr] = MakeAttrValue(true);
    if (ipu >= 0) a[kShardAttr] = MakeAttrValue(int64_t{ipu});
    const int i = ir.AddOp(std::move(d), std::move(inputs), {out}, {TensorShape({2})});
    ir.ops[i].shard = std::max(ipu, 0);
    return i;
  }
  int Handle(const std::string& name) {
    NodeDef d;
    d.set_name(name);
    d.set_op("VarHandleOp");
    return ir.AddOp(std::move(d), {}, {DT_RESOURCE}, {TensorShape({})});
  }

  ClusterIr ir;
};

TEST(PipelineFormationTest, OpsJoinTheirStagesAndCopiesTheirReaders) {
  PipelineIr p;
  const int in = p.Op("infeed", "IpuInfeedDequeue", {});
  const int f0 = p.Op("f0", "Tanh", {{in, 0}}, 0, false, 0);
  const int copy = p.Op("copy", kInterIpuCopyOp, {{f0, 0}});
  const int f1 = p.Op("f1", "Neg", {{copy, 0}}, 1, false, 1);
  const int seed = p.Op("seed", "OnesLike", {{f1, 0}});
  const int b1 = p.Op("b1", "Neg", {{seed, 0}}, 1, true, 1);
  const int b0 = p.Op("b0", "TanhGrad", {{f0, 0}, {b1, 0}}, 0, true, 0);
  absl::StatusOr<bool> changed = PipelineFormation().Run(&p.ir);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  // Units: F0 0, F1 1, B1 2, B0 3.
  EXPECT_EQ(p.ir.ops[in].pipeline_unit, 0);
  EXPECT_EQ(p.ir.ops[f0].pipeline_unit, 0);
  EXPECT_EQ(p.ir.ops[copy].pipeline_unit, 1);  // where its value is read
  EXPECT_EQ(p.ir.ops[f1].pipeline_unit, 1);
  EXPECT_EQ(p.ir.ops[seed].pipeline_unit, 1);  // its latest input's
  EXPECT_EQ(p.ir.ops[b1].pipeline_unit, 2);
  EXPECT_EQ(p.ir.ops[b0].pipeline_unit, 3);
  ASSERT_EQ(p.ir.pipelines.count("loop_0"), 1u);
  EXPECT_TRUE(p.ir.pipelines.at("loop_0").training());
}

TEST(PipelineFormationTest, AValueFromALaterUnitIsAnError) {
  PipelineIr p;
  const int f0 = p.Op("f0", "Neg", {}, 0, false, 0);
  const int b1 = p.Op("b1", "Neg", {{f0, 0}}, 1, true, 0);
  p.Op("f1", "Neg", {{b1, 0}}, 1, false, 0);
  const absl::Status s = PipelineFormation().Run(&p.ir).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("op 'f1' (Neg) in the forward pass of stage 1 uses 'b1', which "
                             "the backward pass of stage 1 computes later"),
            std::string::npos)
      << s;
}

TEST(PipelineFormationTest, StagesOnDifferentIpusMustNotShareAVariable) {
  PipelineIr p;
  const int w = p.Handle("w");
  p.Op("read0", "ReadVariableOp", {{w, 0}}, 0, false, 0);
  p.Op("read1", "ReadVariableOp", {{w, 0}}, 1, false, 1);
  const absl::Status s = PipelineFormation().Run(&p.ir).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("variable 'w' is used by stage 0 (op 'read0', on IPU 0) "
                             "and by stage 1 (op 'read1', on IPU 1)"),
            std::string::npos)
      << s;
}

TEST(PipelineFormationTest, DepthBelowTheOverlapIsTheVendorsError) {
  PipelineIr p;
  p.Op("f0", "Neg", {}, 0, false, 0);
  p.Op("b0", "Neg", {{0, 0}}, 0, true, 0);  // training: overlap 2 x 2 = 4
  (*p.ir.ops[0].def.mutable_attr())[kPipelineDepthAttr] = MakeAttrValue(int64_t{2});
  const absl::Status s = PipelineFormation().Run(&p.ir).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("The number of iterations of the pipeline must be at least 4, but "
                             "it is 2."),
            std::string::npos)
      << s;
}

TEST(PipelineFormationTest, OrdinaryLoopsAreLeftAlone) {
  ClusterIr ir;
  NodeDef d;
  d.set_name("neg");
  d.set_op("Neg");
  (*d.mutable_attr())[kLoopAttr] = MakeAttrValue(std::string("loop_0"));
  ir.AddOp(std::move(d), {}, {DT_FLOAT}, {TensorShape({2})});
  EXPECT_EQ(PipelineFormation().Run(&ir).value(), false);
  EXPECT_EQ(ir.ops[0].pipeline_unit, -1);
}

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
