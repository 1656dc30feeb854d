// Which nodes of a run the executor computes once, when it is built.
#include "tensorflow_ipu/runtime/constant_folding.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"

namespace tensorflow_ipu {
namespace {

std::string ConstNode(const std::string& name, const std::string& extra = "") {
  return "node { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
         "value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 "
         "float_val: 2 } } } " +
         extra + "}\n";
}

std::string Binary(const std::string& name, const std::string& op, const std::string& a,
                   const std::string& b) {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + a + "' input: '" + b +
         "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
}

std::string Unary(const std::string& name, const std::string& op, const std::string& a) {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + a +
         "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
}

// c, d: constants; x: a placeholder of static shape [2]; y: of unknown
// shape.
std::unique_ptr<Graph> MakeGraph() {
  const std::string text =
      ConstNode("c") + ConstNode("d") +
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape { dim { size: 2 } } } } }\n"
      "node { name: 'y' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape { unknown_rank: true } } } }\n" +
      Binary("cd", "Mul", "c", "d") +           // constants only
      Unary("ones_x", "OnesLike", "x") +       // x's static shape only
      Binary("seed", "Mul", "ones_x", "cd") +  // both folded
      Unary("ones_y", "OnesLike", "y") +       // y's shape is unknown
      Binary("xc", "Add", "x", "c") +          // reads x's values
      Unary("neg_xc", "Neg", "xc") +           // downstream of a value
      ConstNode("waits", "input: '^x'") +      // a control input
      Unary("relu_c", "Relu", "c");            // not a foldable op
  absl::StatusOr<GraphDef> def = GraphDefFromText(text);
  EXPECT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Graph>> g = Graph::FromGraphDef(*def);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? std::move(*g) : nullptr;
}

// The names of the folded nodes among those the fetches need, and for
// each, its shape-only inputs.
std::map<std::string, std::vector<int>> Folded(const Graph& g,
                                               const std::vector<std::string>& fetch_names,
                                               const std::vector<std::string>& feed_names) {
  std::vector<TensorRef> feeds, fetches;
  for (const std::string& f : feed_names) feeds.push_back({g.FindNode(f), 0});
  for (const std::string& f : fetch_names) fetches.push_back({g.FindNode(f), 0});
  const std::vector<const Node*> nodes = NeededNodes(feeds, fetches, {});
  std::map<std::string, std::vector<int>> folded;
  for (const ConstantFold& f : FindConstantFolds(nodes, feeds)) {
    folded[nodes[f.position]->name()] = f.shape_inputs;
  }
  return folded;
}

TEST(ConstantFoldingTest, ConstantsAndStaticShapesFold) {
  std::unique_ptr<Graph> g = MakeGraph();
  ASSERT_NE(g, nullptr);
  const auto folded = Folded(*g, {"cd", "seed", "ones_y", "neg_xc", "waits", "relu_c"}, {"x", "y"});
  const std::map<std::string, std::vector<int>> want = {
      {"c", {}}, {"d", {}}, {"cd", {}}, {"ones_x", {0}}, {"seed", {}}};
  EXPECT_EQ(folded, want);
}

TEST(ConstantFoldingTest, AFedTensorIsNotConstant) {
  std::unique_ptr<Graph> g = MakeGraph();
  ASSERT_NE(g, nullptr);
  // d fed: the product reads a value that can change from run to run.
  const auto folded = Folded(*g, {"cd"}, {"d"});
  const std::map<std::string, std::vector<int>> want = {{"c", {}}};
  EXPECT_EQ(folded, want);
}

}  // namespace
}  // namespace tensorflow_ipu
