// Which MatMul + ResourceApplyGradientDescent pairs of a run the executor
// takes as one product into the variable, and which it leaves alone.
#include "tensorflow_ipu/runtime/gradient_update_fusion.h"

#include <string>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"

namespace tensorflow_ipu {
namespace {

// grad = x^T g; update: w -= lr * grad. `extra` adds nodes.
std::unique_ptr<Graph> MakeGraph(const std::string& extra = "",
                                 const std::string& type = "DT_FLOAT") {
  const std::string text = R"pb(
    node {
      name: "x" op: "Placeholder"
      attr { key: "dtype" value { type: )pb" + type + R"pb( } }
      attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } }
    }
    node {
      name: "g" op: "Placeholder"
      attr { key: "dtype" value { type: )pb" + type + R"pb( } }
      attr { key: "shape" value { shape { dim { size: 4 } dim { size: 2 } } } }
    }
    node {
      name: "w" op: "VarHandleOp"
      attr { key: "dtype" value { type: )pb" + type + R"pb( } }
      attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } }
    }
    node {
      name: "lr" op: "Placeholder"
      attr { key: "dtype" value { type: )pb" + type + R"pb( } }
      attr { key: "shape" value { shape {} } }
    }
    node {
      name: "grad" op: "MatMul" input: "x" input: "g"
      attr { key: "T" value { type: )pb" + type + R"pb( } }
      attr { key: "transpose_a" value { b: true } }
    }
    node {
      name: "update" op: "ResourceApplyGradientDescent" input: "w" input: "lr" input: "grad"
      attr { key: "T" value { type: )pb" + type + R"pb( } }
    }
  )pb" + extra;
  absl::StatusOr<GraphDef> def = GraphDefFromText(text);
  EXPECT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Graph>> g = Graph::FromGraphDef(*def);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? std::move(*g) : nullptr;
}

TensorRef Ref(const Graph& g, const std::string& name) { return {g.FindNode(name), 0}; }

std::vector<GradientUpdateFusion> Find(const Graph& g, const std::vector<TensorRef>& feeds,
                                       const std::vector<TensorRef>& fetches,
                                       const std::vector<std::string>& targets) {
  std::vector<const Node*> target_nodes;
  for (const std::string& t : targets) target_nodes.push_back(g.FindNode(t));
  const std::vector<const Node*> nodes = NeededNodes(feeds, fetches, target_nodes);
  return FindGradientUpdateFusions(nodes, feeds, fetches);
}

std::vector<TensorRef> Feeds(const Graph& g) {
  return {Ref(g, "x"), Ref(g, "g"), Ref(g, "lr")};
}

TEST(GradientUpdateFusionTest, AProductUsedOnlyAsTheGradientIsFused) {
  std::unique_ptr<Graph> g = MakeGraph();
  ASSERT_NE(g, nullptr);
  std::vector<const Node*> nodes = NeededNodes(Feeds(*g), {}, {g->FindNode("update")});
  const std::vector<GradientUpdateFusion> f = FindGradientUpdateFusions(nodes, Feeds(*g), {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(nodes[f[0].product]->name(), "grad");
  EXPECT_EQ(nodes[f[0].update]->name(), "update");
  EXPECT_TRUE(f[0].transpose_a);
  EXPECT_FALSE(f[0].transpose_b);
}

TEST(GradientUpdateFusionTest, AFetchedProductIsNotFused) {
  std::unique_ptr<Graph> g = MakeGraph();
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(Find(*g, Feeds(*g), {Ref(*g, "grad")}, {"update"}).empty());
}

TEST(GradientUpdateFusionTest, AFedProductIsNotFused) {
  std::unique_ptr<Graph> g = MakeGraph();
  ASSERT_NE(g, nullptr);
  std::vector<TensorRef> feeds = Feeds(*g);
  feeds.push_back(Ref(*g, "grad"));
  EXPECT_TRUE(Find(*g, feeds, {}, {"update"}).empty());
}

TEST(GradientUpdateFusionTest, AProductWithAnotherReaderInTheRunIsNotFused) {
  std::unique_ptr<Graph> g = MakeGraph(R"pb(
    node {
      name: "norm" op: "Sum" input: "grad" input: "axes"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node {
      name: "axes" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                           int_val: 0 int_val: 1 } } }
    }
  )pb");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(Find(*g, Feeds(*g), {Ref(*g, "norm")}, {"update"}).empty());
  // A reader outside the run does not count.
  EXPECT_EQ(Find(*g, Feeds(*g), {}, {"update"}).size(), 1u);
}

TEST(GradientUpdateFusionTest, AProductSomethingWaitsForIsNotFused) {
  std::unique_ptr<Graph> g = MakeGraph(R"pb(
    node { name: "after" op: "NoOp" input: "^grad" }
  )pb");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(Find(*g, Feeds(*g), {}, {"update", "after"}).empty());
}

TEST(GradientUpdateFusionTest, DoubleProductsAreNotFused) {
  std::unique_ptr<Graph> g = MakeGraph("", "DT_DOUBLE");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(Find(*g, Feeds(*g), {}, {"update"}).empty());
}

}  // namespace
}  // namespace tensorflow_ipu
