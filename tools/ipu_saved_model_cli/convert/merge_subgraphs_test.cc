#include "tools/ipu_saved_model_cli/convert/merge_subgraphs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tools/ipu_saved_model_cli/convert/testing/converter_test_util.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;
using testing::FindNode;
using testing::Inputs;
using testing::NodeNames;

// x (host) -> a -> y (outputs y and a), all but x on the IPU.
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "a" op: "Neg" input: "x" device: "/device:IPU:0"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Mul" input: "a" input: "x" input: "^a" device: "/device:IPU:0"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "_ipu_shard" value { i: 1 } } }
)pb";

SignatureDef Sig() {
  return testing::Signature({{"x", {"x:0", DT_FLOAT, {2}}}},
                            {{"y", {"y:0", DT_FLOAT, {2}}}, {"a", {"a:0", DT_FLOAT, {2}}}});
}

std::unique_ptr<MergeSubgraphs> Make(bool merge) {
  ConvertOptions o;
  o.merge_subgraphs = merge;
  absl::StatusOr<std::unique_ptr<MergeSubgraphs>> c = MergeSubgraphs::Create(o);
  EXPECT_TRUE(c.ok()) << c.status();
  return std::move(*c);
}

TEST(MergeSubgraphsTest, IpuNodesFormOneClusterAndOutputsAreWrapped) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  auto c = Make(true);
  EXPECT_EQ(c->name(), "IPUCompilerWrapper");
  TF_ASSERT_OK(c->Apply(&g, &sig));
  EXPECT_THAT(NodeNames(g), ElementsAre("x", "a/wrapped", "y/wrapped", "a", "y"));
  EXPECT_FALSE(FindNode(g, "x")->attr().contains(kCompileClusterAttr));
  for (const char* name : {"a/wrapped", "y/wrapped", "a", "y"}) {
    EXPECT_EQ(FindNode(g, name)->attr().at(kCompileClusterAttr).s(), "merged_ipu_subgraphs")
        << name;
    EXPECT_EQ(FindNode(g, name)->device(), "/device:IPU:0") << name;
  }
  EXPECT_THAT(Inputs(g, "y/wrapped"), ElementsAre("a/wrapped", "x", "^a/wrapped"));
  const NodeDef* y = FindNode(g, "y");
  EXPECT_EQ(y->op(), "Identity");
  EXPECT_THAT(Inputs(g, "y"), ElementsAre("y/wrapped"));
  EXPECT_EQ(y->attr().at("T").type(), DT_FLOAT);
  EXPECT_EQ(y->attr().at(kShardAttr).i(), 1);
  EXPECT_TRUE(y->attr().at("_XlaCompile").b());
  EXPECT_EQ(sig.outputs().at("y").name(), "y:0");
  absl::StatusOr<std::unique_ptr<Graph>> imported = Graph::FromGraphDef(g);
  EXPECT_TRUE(imported.ok()) << imported.status();
}

TEST(MergeSubgraphsTest, OffLeavesTheGraph) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  TF_ASSERT_OK(Make(false)->Apply(&g, &sig));
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
}

TEST(MergeSubgraphsTest, ACpuTailAfterTheIpuPartIsKept) {
  std::string text = kGraph;
  text += R"pb(node { name: "tail" op: "Neg" input: "y" attr { key: "T" value { type: DT_FLOAT } } })pb";
  GraphDef g = testing::Graph(text);
  SignatureDef sig = Sig();
  TF_ASSERT_OK(Make(true)->Apply(&g, &sig));
  // As every reader of a renamed output, the tail reads it renamed.
  EXPECT_THAT(Inputs(g, "tail"), ElementsAre("y/wrapped"));
  EXPECT_EQ(FindNode(g, "tail")->device(), "");
  EXPECT_FALSE(FindNode(g, "tail")->attr().contains(kCompileClusterAttr));
}

TEST(MergeSubgraphsTest, ACpuNodeBetweenIpuNodesIsRefused) {
  std::string text = kGraph;
  text += R"pb(
    node { name: "cpu" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "cpu2" op: "Neg" input: "cpu" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "back" op: "Neg" input: "cpu2" device: "/device:IPU:0"
           attr { key: "T" value { type: DT_FLOAT } } })pb";
  GraphDef g = testing::Graph(text);
  SignatureDef sig = Sig();
  absl::Status s = Make(true)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "merge_subgraphs: node 'cpu2' runs on the CPU between IPU nodes ('a' before it, "
            "'back' after it), so the IPU part cannot be one program; place it on the IPU or "
            "exclude the nodes after it too");
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(text)));
}

TEST(MergeSubgraphsTest, NothingOnTheIpuIsRefused) {
  GraphDef g = testing::Graph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  )pb");
  SignatureDef sig;
  absl::Status s = Make(true)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "merge_subgraphs: no node is placed on the IPU (with --no_ipu_placement, or every "
            "node excluded), so there is nothing to merge; leave out --merge_subgraphs");
}

TEST(MergeSubgraphsTest, AnEmbeddedRuntimeTakesOverTheMerge) {
  ConvertOptions o;
  o.merge_subgraphs = true;
  o.embedded_runtime_save_config = {{"embedded_runtime_exec_cachedir", "c"}};
  absl::StatusOr<std::unique_ptr<MergeSubgraphs>> c = MergeSubgraphs::Create(o);
  ASSERT_TRUE(c.ok()) << c.status();
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  TF_ASSERT_OK((*c)->Apply(&g, &sig));
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
