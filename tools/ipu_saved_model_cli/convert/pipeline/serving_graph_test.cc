#include "tools/ipu_saved_model_cli/convert/pipeline/serving_graph.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;

// Listed out of order on purpose: y reads add, which is listed first.
constexpr char kGraph[] = R"pb(
  node { name: "y" op: "Identity" input: "add" }
  node { name: "add" op: "AddV2" input: "mul" input: "b/read" }
  node { name: "x" op: "Placeholder" }
  node { name: "w" op: "Const" }
  node { name: "b" op: "Const" }
  node { name: "b/read" op: "Identity" input: "b" }
  node { name: "mul" op: "Mul" input: "x:0" input: "w" input: "^x" }
)pb";

SignatureDef XToY() {
  SignatureDef sig;
  (*sig.mutable_inputs())["x"].set_name("x:0");
  (*sig.mutable_outputs())["y"].set_name("y:0");
  return sig;
}

TEST(ServingGraphTest, OrdersNodesAndSkipsPassThroughOps) {
  absl::StatusOr<GraphDef> graph = GraphDefFromText(kGraph);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<ServingGraph> g = ServingGraph::Make(*graph, XToY());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->order(), ElementsAre("x", "w", "b", "b/read", "mul", "add", "y"));
  EXPECT_THAT(g->compute_order(), ElementsAre("mul", "add"));
  EXPECT_THAT(g->inputs("mul"), ElementsAre("x", "w"));
  EXPECT_THAT(g->consumers("x"), ElementsAre("mul"));
  EXPECT_EQ(g->signature_inputs().count("x"), 1u);
}

TEST(ServingGraphTest, PassThroughNodesTakeTheirConsumersStage) {
  absl::StatusOr<GraphDef> graph = GraphDefFromText(kGraph);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<ServingGraph> g = ServingGraph::Make(*graph, XToY());
  ASSERT_TRUE(g.ok()) << g.status();
  std::map<std::string, int> stages = g->CompleteStages({{"mul", 0}, {"add", 1}});
  // w feeds mul; b feeds add through b/read; y reads add and feeds nothing.
  EXPECT_EQ(stages, (std::map<std::string, int>{
                        {"w", 0}, {"b", 1}, {"b/read", 1}, {"mul", 0}, {"add", 1}, {"y", 1}}));
}

TEST(ServingGraphTest, UnknownInputsAndCyclesNameTheNode) {
  absl::StatusOr<GraphDef> graph =
      GraphDefFromText(R"pb(node { name: "a" op: "Neg" input: "nope:1" })pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::Status s = ServingGraph::Make(*graph, SignatureDef()).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "node 'a' reads 'nope:1', which is not in the graph");
  graph = GraphDefFromText(R"pb(node { name: "a" op: "Neg" input: "b" }
                                node { name: "b" op: "Neg" input: "a" })pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  s = ServingGraph::Make(*graph, SignatureDef()).status();
  EXPECT_EQ(s.message(), "node 'a' is on a cycle; a serving graph must be acyclic");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
