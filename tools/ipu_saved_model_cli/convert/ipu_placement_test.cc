#include "tools/ipu_saved_model_cli/convert/ipu_placement.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tools/ipu_saved_model_cli/convert/testing/converter_test_util.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;
using testing::FindNode;
using testing::Inputs;
using testing::NodeNames;

// x -> pre = x * two (a CPU head when excluded) -> a = pre + one -> y = relu(a)
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "two" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
  node { name: "one" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
  node { name: "pre" op: "Mul" input: "x" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "a" op: "AddV2" input: "pre" input: "one" input: "^two"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Relu" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

SignatureDef Sig() {
  return testing::Signature({{"x", {"x:0", DT_FLOAT, {2}}}}, {{"y", {"y:0", DT_FLOAT, {2}}}});
}

std::unique_ptr<IpuPlacement> Make(const ConvertOptions& options) {
  absl::StatusOr<std::unique_ptr<IpuPlacement>> c = IpuPlacement::Create(options);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? std::move(*c) : nullptr;
}

TEST(IpuPlacementTest, EveryNodeButPlaceholdersGoesOnTheIpuWithTheXlaAttrs) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  auto c = Make(ConvertOptions());
  EXPECT_EQ(c->name(), "IPUPlacement");
  TF_ASSERT_OK(c->Apply(&g, &sig));
  EXPECT_EQ(FindNode(g, "x")->device(), "");
  EXPECT_FALSE(FindNode(g, "x")->attr().contains("_XlaCompile"));
  for (const char* name : {"two", "one", "pre", "a", "y"}) {
    const NodeDef* n = FindNode(g, name);
    EXPECT_EQ(n->device(), "/device:IPU:0") << name;
    EXPECT_TRUE(n->attr().at("_XlaCompile").b()) << name;
    EXPECT_EQ(n->attr().at("_XlaScope").s(), "jit_scope_ipu_0") << name;
    EXPECT_FALSE(n->attr().at("_XlaSeparateCompiledGradients").b()) << name;
  }
  EXPECT_TRUE(testing::SameProto(sig, Sig()));
}

TEST(IpuPlacementTest, ExcludedNodesAreMatchedAnywhereAndStayWhereTheyWere) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  ConvertOptions o;
  o.excluded_nodes = {"^pr", "tw"};
  TF_ASSERT_OK(Make(o)->Apply(&g, &sig));
  EXPECT_EQ(FindNode(g, "pre")->device(), "");
  EXPECT_EQ(FindNode(g, "two")->device(), "");
  EXPECT_EQ(FindNode(g, "a")->device(), "/device:IPU:0");
}

TEST(IpuPlacementTest, NoIpuPlacementLeavesTheGraph) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  ConvertOptions o;
  o.no_ipu_placement = true;
  TF_ASSERT_OK(Make(o)->Apply(&g, &sig));
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
}

TEST(IpuPlacementTest, RemovingTheCpuHeadTurnsItsEdgesIntoTheSignaturesInputs) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  ConvertOptions o;
  o.excluded_nodes = {"^pre$", "^two$"};
  o.remove_excluded_nodes = true;
  TF_ASSERT_OK(Make(o)->Apply(&g, &sig));
  EXPECT_THAT(NodeNames(g), ElementsAre("pre", "one", "a", "y"));
  const NodeDef* p = FindNode(g, "pre");
  EXPECT_EQ(p->op(), "Placeholder");
  EXPECT_EQ(p->device(), "");
  EXPECT_EQ(p->attr().at("dtype").type(), DT_FLOAT);
  EXPECT_EQ(p->attr().at("shape").shape().dim_size(), 1);
  EXPECT_EQ(p->attr().at("shape").shape().dim(0).size(), 2);
  // The control edge from the removed head is gone.
  EXPECT_THAT(Inputs(g, "a"), ElementsAre("pre", "one"));
  ASSERT_EQ(sig.inputs().size(), 1u);
  const TensorInfo& in = sig.inputs().at("pre");
  EXPECT_EQ(in.name(), "pre:0");
  EXPECT_EQ(in.dtype(), DT_FLOAT);
  EXPECT_EQ(in.tensor_shape().dim(0).size(), 2);
  EXPECT_EQ(sig.outputs().at("y").name(), "y:0");
  // The result is a valid graph.
  absl::StatusOr<std::unique_ptr<Graph>> imported = Graph::FromGraphDef(g);
  EXPECT_TRUE(imported.ok()) << imported.status();
}

TEST(IpuPlacementTest, ASecondOutputOfACpuNodeGetsAnIndexedPlaceholder) {
  GraphDef g = testing::Graph(R"pb(
    node { name: "x" op: "Placeholder"
           attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "shape" value { shape { dim { size: 2 } } } } }
    node { name: "args" op: "BroadcastGradientArgs" input: "x" input: "x"
           attr { key: "T" value { type: DT_INT32 } } }
    node { name: "y" op: "AddV2" input: "args" input: "args:1"
           attr { key: "T" value { type: DT_INT32 } } }
  )pb");
  SignatureDef sig = testing::Signature({{"x", {"x:0", DT_INT32, {2}}}},
                                        {{"y", {"y:0", DT_INT32, {-1}}}});
  ConvertOptions o;
  o.excluded_nodes = {"args"};
  o.remove_excluded_nodes = true;
  TF_ASSERT_OK(Make(o)->Apply(&g, &sig));
  EXPECT_THAT(NodeNames(g), ElementsAre("args", "args_1", "y"));
  EXPECT_THAT(Inputs(g, "y"), ElementsAre("args", "args_1"));
  ASSERT_EQ(sig.inputs().size(), 2u);
  EXPECT_EQ(sig.inputs().at("args").name(), "args:0");
  EXPECT_EQ(sig.inputs().at("args_1").name(), "args_1:0");
  EXPECT_EQ(sig.inputs().at("args_1").dtype(), DT_INT32);
}

TEST(IpuPlacementTest, ACpuNodeReadingAnIpuNodeIsRefusedAndNothingChanges) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  ConvertOptions o;
  o.excluded_nodes = {"^y$"};
  o.remove_excluded_nodes = true;
  absl::Status s = Make(o)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Please place a on CPU, a complete CPU head is required.");
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
  EXPECT_TRUE(testing::SameProto(sig, Sig()));
}

TEST(IpuPlacementTest, AnOutputComputedByTheRemovedHeadIsRefused) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = testing::Signature(
      {{"x", {"x:0", DT_FLOAT, {2}}}},
      {{"y", {"y:0", DT_FLOAT, {2}}}, {"doubled", {"pre:0", DT_FLOAT, {2}}}});
  ConvertOptions o;
  o.excluded_nodes = {"^pre$", "^two$"};
  o.remove_excluded_nodes = true;
  absl::Status s = Make(o)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "signature output 'doubled' (pre:0) is computed on the CPU by node 'pre', which "
            "--remove_excluded_nodes removes; exclude fewer nodes or keep them");
}

TEST(IpuPlacementTest, AnInvalidExcludedPatternFailsCreation) {
  ConvertOptions o;
  o.excluded_nodes = {"("};
  absl::StatusOr<std::unique_ptr<IpuPlacement>> c = IpuPlacement::Create(o);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
