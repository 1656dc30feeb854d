// The cross-replica-combining pass: which reductions it makes one, and
// what it leaves alone.
#include "tensorflow_ipu/compiler/cross_replica_combining.h"

#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

NodeDef Def(const std::string& name, const std::string& op, int64_t group = 0) {
  NodeDef d;
  d.set_name(name);
  d.set_op(op);
  if (op.rfind("IpuCrossReplica", 0) == 0) {
    (*d.mutable_attr())["replica_group_size"] = MakeAttrValue(group);
  }
  return d;
}

// Three gradients [4,3], [3] and [2,2] (48, 12 and 16 bytes), each summed
// across 2 replicas and applied by its own update; `order` lists the ops.
struct GradientsIr {
  ClusterIr ir;
  int g1, g2, g3, sum1, sum2, sum3, use1, use2, use3;
  explicit GradientsIr(const std::string& second_kind = "IpuCrossReplicaSum") {
    ir.replication_factor = 2;
    g1 = ir.AddArg("g1:0", DT_FLOAT, TensorShape({4, 3}));
    sum1 =
        ir.AddOp(Def("sum1", "IpuCrossReplicaSum"), {{g1, 0}}, {DT_FLOAT}, {TensorShape({4, 3})});
    use1 = ir.AddOp(Def("use1", "Neg"), {{sum1, 0}}, {DT_FLOAT}, {TensorShape({4, 3})});
    g2 = ir.AddArg("g2:0", DT_FLOAT, TensorShape({3}));
    sum2 = ir.AddOp(Def("sum2", second_kind), {{g2, 0}}, {DT_FLOAT}, {TensorShape({3})});
    use2 = ir.AddOp(Def("use2", "Neg"), {{sum2, 0}}, {DT_FLOAT}, {TensorShape({3})});
    g3 = ir.AddArg("g3:0", DT_FLOAT, TensorShape({2, 2}));
    sum3 =
        ir.AddOp(Def("sum3", "IpuCrossReplicaSum"), {{g3, 0}}, {DT_FLOAT}, {TensorShape({2, 2})});
    use3 = ir.AddOp(Def("use3", "Neg"), {{sum3, 0}}, {DT_FLOAT}, {TensorShape({2, 2})});
    ir.results = {{use1, 0}, {use2, 0}, {use3, 0}};
    for (ClusterOp& op : ir.ops) op.shard = 0;
  }
  int Find(const std::string& name) const {
    for (size_t i = 0; i < ir.ops.size(); ++i) {
      if (ir.ops[i].name() == name) return static_cast<int>(i);
    }
    return -1;
  }
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const ClusterOp& op : ir.ops) names.push_back(op.name() + "=" + op.op());
    return names;
  }
};

bool Combine(ClusterIr* ir, int64_t budget) {
  CrossReplicaCombining pass(budget);
  absl::StatusOr<bool> changed = pass.Run(ir);
  EXPECT_TRUE(changed.ok()) << changed.status();
  return changed.ok() && *changed;
}

TEST(CrossReplicaCombiningTest, IndependentSumsWithinTheBudgetBecomeOne) {
  GradientsIr t;
  ASSERT_TRUE(Combine(&t.ir, 1 << 20));
  // The combined op sits where the last sum was; the uses of the earlier
  // sums moved after it; the sums are NoOps waiting for it.
  EXPECT_EQ(t.Names(),
            (std::vector<std::string>{
                "g1:0=_Arg", "g2:0=_Arg", "g3:0=_Arg", "sum3/combined=_CombinedCrossReplica",
                "sum1=NoOp", "use1=Neg", "sum2=NoOp", "use2=Neg", "sum3=NoOp", "use3=Neg"}));
  const int c = t.Find("sum3/combined");
  ASSERT_GE(c, 0);
  const ClusterOp& combined = t.ir.ops[c];
  EXPECT_EQ(combined.op(), kCombinedCrossReplicaOp);
  EXPECT_EQ(combined.def.attr().at("reduction").s(), "sum");
  EXPECT_EQ(combined.def.attr().at("replica_group_size").i(), 0);
  ASSERT_EQ(combined.inputs.size(), 3u);
  EXPECT_EQ(t.ir.ops[combined.inputs[0].op].name(), "g1:0");
  EXPECT_EQ(t.ir.ops[combined.inputs[1].op].name(), "g2:0");
  EXPECT_EQ(t.ir.ops[combined.inputs[2].op].name(), "g3:0");
  EXPECT_EQ(combined.output_shapes,
            (std::vector<TensorShape>{TensorShape({4, 3}), TensorShape({3}), TensorShape({2, 2})}));
  // Each use reads its output of the combined op, after it.
  for (int k = 0; k < 3; ++k) {
    const int use = t.Find("use" + std::to_string(k + 1));
    ASSERT_GE(use, 0);
    EXPECT_EQ(t.ir.ops[use].inputs[0], (ValueRef{c, k})) << "use" << k + 1;
    EXPECT_GT(use, c);
  }
  for (const char* member : {"sum1", "sum2", "sum3"}) {
    const int m = t.Find(member);
    ASSERT_GE(m, 0) << member;
    EXPECT_EQ(t.ir.ops[m].op(), "NoOp") << member;
    EXPECT_TRUE(t.ir.ops[m].inputs.empty()) << member;
    EXPECT_EQ(t.ir.ops[m].control_inputs, std::vector<int>{c}) << member;
  }
  ASSERT_EQ(t.ir.results.size(), 3u);
  EXPECT_EQ(t.ir.results[0].op, t.Find("use1"));
  // Still topological.
  for (size_t i = 0; i < t.ir.ops.size(); ++i) {
    for (const ValueRef& v : t.ir.ops[i].inputs) EXPECT_LT(v.op, static_cast<int>(i));
    for (int b : t.ir.ops[i].control_inputs) EXPECT_LT(b, static_cast<int>(i));
  }
}

TEST(CrossReplicaCombiningTest, TheBudgetClosesAGroup) {
  // 48 + 12 bytes fit in 60; the third (16) starts a new group of one,
  // which stays a sum.
  GradientsIr t;
  ASSERT_TRUE(Combine(&t.ir, 60));
  const int c = t.Find("sum2/combined");
  ASSERT_GE(c, 0);
  EXPECT_EQ(t.ir.ops[c].inputs.size(), 2u);
  EXPECT_EQ(t.ir.ops[t.Find("sum3")].op(), "IpuCrossReplicaSum");
}

TEST(CrossReplicaCombiningTest, AReductionLargerThanTheBudgetStaysAlone) {
  // The first (48 bytes) is over a budget of 40; the other two combine.
  GradientsIr t;
  ASSERT_TRUE(Combine(&t.ir, 40));
  EXPECT_EQ(t.ir.ops[t.Find("sum1")].op(), "IpuCrossReplicaSum");
  const int c = t.Find("sum3/combined");
  ASSERT_GE(c, 0);
  EXPECT_EQ(t.ir.ops[c].inputs.size(), 2u);
}

TEST(CrossReplicaCombiningTest, NothingWithoutABudgetOrWithOneReplica) {
  GradientsIr unbudgeted;
  const std::string before = unbudgeted.ir.ToString();
  EXPECT_FALSE(Combine(&unbudgeted.ir, 0));
  EXPECT_EQ(unbudgeted.ir.ToString(), before);
  GradientsIr single;
  single.ir.replication_factor = 1;
  EXPECT_FALSE(Combine(&single.ir, 1 << 20));
  EXPECT_EQ(single.ir.ToString(), before);
}

TEST(CrossReplicaCombiningTest, ASumOfASumIsNotCombinedWithIt) {
  GradientsIr t;
  // sum2 now reduces use1, which reads sum1: it must wait for sum1.
  t.ir.ops[t.sum2].inputs = {{t.use1, 0}};
  t.ir.ops[t.sum2].output_shapes = {TensorShape({4, 3})};
  t.ir.ops[t.use2].output_shapes = {TensorShape({4, 3})};
  ASSERT_TRUE(Combine(&t.ir, 1 << 20));
  // sum1 alone (a group of one stays a sum); sum2 and sum3 together.
  EXPECT_EQ(t.ir.ops[t.Find("sum1")].op(), "IpuCrossReplicaSum");
  const int c = t.Find("sum3/combined");
  ASSERT_GE(c, 0);
  EXPECT_EQ(t.ir.ops[c].inputs.size(), 2u);
  EXPECT_EQ(t.ir.ops[c].inputs[0], (ValueRef{t.Find("use1"), 0}));
}

TEST(CrossReplicaCombiningTest, AControlDependencyOnASumAlsoSeparates) {
  GradientsIr t;
  t.ir.ops[t.sum2].control_inputs = {t.use1};
  ASSERT_TRUE(Combine(&t.ir, 1 << 20));
  EXPECT_EQ(t.ir.ops[t.Find("sum1")].op(), "IpuCrossReplicaSum");
  EXPECT_GE(t.Find("sum3/combined"), 0);
}

// A chain of 50,000 reductions, each of the one before: none can join
// another, and the pass stays linear in the chain's length (the sets of
// groups an op depends on keep open groups only).
TEST(CrossReplicaCombiningTest, ALongChainOfReductionsIsLinear) {
  ClusterIr ir;
  ir.replication_factor = 2;
  int previous = ir.AddArg("x:0", DT_FLOAT, TensorShape({4}));
  for (int i = 0; i < 50000; ++i) {
    previous = ir.AddOp(Def("sum" + std::to_string(i), "IpuCrossReplicaSum"), {{previous, 0}},
                        {DT_FLOAT}, {TensorShape({4})});
  }
  ir.results = {{previous, 0}};
  for (ClusterOp& op : ir.ops) op.shard = 0;
  EXPECT_FALSE(Combine(&ir, 1 << 20));
  // Sizes whose bytes overflow int64 are over any budget, not negative.
  GradientsIr t;
  t.ir.ops[t.sum1].output_shapes = {TensorShape({int64_t{1} << 40, int64_t{1} << 22})};
  ASSERT_TRUE(Combine(&t.ir, int64_t{1} << 62));
  EXPECT_EQ(t.ir.ops[t.Find("sum1")].op(), "IpuCrossReplicaSum");
  EXPECT_EQ(t.ir.ops[t.Find("sum3/combined")].inputs.size(), 2u);
}

TEST(CrossReplicaCombiningTest, OnlyLikeWithLike) {
  // A mean between two sums: the sums combine, the mean stays.
  GradientsIr mean("IpuCrossReplicaMean");
  ASSERT_TRUE(Combine(&mean.ir, 1 << 20));
  EXPECT_EQ(mean.ir.ops[mean.Find("sum2")].op(), "IpuCrossReplicaMean");
  EXPECT_EQ(mean.ir.ops[mean.Find("sum3/combined")].inputs.size(), 2u);
  // Other replica groups, IPUs, loops or dtypes: nothing to combine.
  auto alone = [](const std::function<void(GradientsIr&)>& change) {
    GradientsIr t;
    change(t);
    return !Combine(&t.ir, 1 << 20);
  };
  EXPECT_TRUE(alone([](GradientsIr& t) {
    (*t.ir.ops[t.sum1].def.mutable_attr())["replica_group_size"] = MakeAttrValue(int64_t{2});
    (*t.ir.ops[t.sum3].def.mutable_attr())["replica_group_size"] = MakeAttrValue(int64_t{1});
  }));
  EXPECT_TRUE(alone([](GradientsIr& t) {
    t.ir.ops[t.sum1].shard = 1;
    t.ir.ops[t.sum3].shard = 2;
  }));
  EXPECT_TRUE(alone([](GradientsIr& t) {
    (*t.ir.ops[t.sum1].def.mutable_attr())[kLoopAttr] = MakeAttrValue("loop_a");
    (*t.ir.ops[t.sum3].def.mutable_attr())[kLoopAttr] = MakeAttrValue("loop_b");
  }));
  EXPECT_TRUE(alone([](GradientsIr& t) {
    t.ir.ops[t.sum1].output_types = {DT_HALF};
    t.ir.ops[t.sum3].output_types = {DT_INT32};
  }));
}

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
