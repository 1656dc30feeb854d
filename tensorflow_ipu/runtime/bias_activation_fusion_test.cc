// Which MatMul -> BiasAdd (-> Relu) chains of a run the executor computes as
// one kernel run, and which it leaves alone.
#include "tensorflow_ipu/runtime/bias_activation_fusion.h"

#include <string>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"

namespace tensorflow_ipu {
namespace {

// relu(x w + b); `extra` adds nodes.
std::unique_ptr<Graph> MakeGraph(const std::string& extra = "",
                                 const std::string& type = "DT_FLOAT") {
  const std::string text = R"pb(
                             node { name: "x" op: "Placeholder"
                                    attr { key: "dtype"
                                           value { type:)pb" +
                           type + R"pb(}
                                       }
      attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } }
    }
    node {
      name: "w" op: "Placeholder"
      attr { key: "dtype" value { type: )pb" +
                           type + R"pb(}
                                       }
      attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } }
    }
    node {
      name: "b" op: "Placeholder"
      attr { key: "dtype" value { type: )pb" +
                           type + R"pb(}
                                       }
      attr { key: "shape" value { shape { dim { size: 2 } } } }
    }
    node {
      name: "product" op: "MatMul" input: "x" input: "w"
      attr { key: "T" value { type: )pb" +
                           type + R"pb(}
                                       }
      attr { key: "transpose_b" value { b: false } }
    }
    node {
      name: "biased" op: "BiasAdd" input: "product" input: "b"
      attr { key: "T" value { type: )pb" +
                           type + R"pb(}
                                       }
    }
    node {
      name: "relu" op: "Relu" input: "biased"
      attr { key: "T" value { type: )pb" +
                           type + R"pb(}
                                       }
    }
  )pb" + extra;
  absl::StatusOr<GraphDef> def = GraphDefFromText(text);
  EXPECT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Graph>> g = Graph::FromGraphDef(*def);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? std::move(*g) : nullptr;
}

TensorRef Ref(const Graph& g, const std::string& name) { return {g.FindNode(name), 0}; }

struct Found {
  std::vector<const Node*> nodes;
  std::vector<BiasActivationFusion> fusions;
};

Found Find(const Graph& g, const std::vector<std::string>& fetch_names,
           const std::vector<std::string>& target_names = {}) {
  const std::vector<TensorRef> feeds = {Ref(g, "x"), Ref(g, "w"), Ref(g, "b")};
  std::vector<TensorRef> fetches;
  for (const std::string& f : fetch_names) fetches.push_back(Ref(g, f));
  std::vector<const Node*> targets;
  for (const std::string& t : target_names) targets.push_back(g.FindNode(t));
  Found found;
  found.nodes = NeededNodes(feeds, fetches, targets);
  found.fusions = FindBiasActivationFusions(found.nodes, feeds, fetches);
  return found;
}

TEST(BiasActivationFusionTest, TheWholeChainIsFusedIntoTheRelu) {
  std::unique_ptr<Graph> g = MakeGraph();
  ASSERT_NE(g, nullptr);
  const Found f = Find(*g, {"relu"});
  ASSERT_EQ(f.fusions.size(), 1u);
  EXPECT_EQ(f.nodes[f.fusions[0].product]->name(), "product");
  EXPECT_EQ(f.nodes[f.fusions[0].bias_add]->name(), "biased");
  ASSERT_GE(f.fusions[0].relu, 0);
  EXPECT_EQ(f.nodes[f.fusions[0].relu]->name(), "relu");
  EXPECT_FALSE(f.fusions[0].transpose_a);
}

TEST(BiasActivationFusionTest, AFetchedBiasAddEndsTheChain) {
  std::unique_ptr<Graph> g = MakeGraph();
  ASSERT_NE(g, nullptr);
  const Found f = Find(*g, {"relu", "biased"});
  ASSERT_EQ(f.fusions.size(), 1u);
  EXPECT_EQ(f.nodes[f.fusions[0].bias_add]->name(), "biased");
  EXPECT_EQ(f.fusions[0].relu, -1);
}

TEST(BiasActivationFusionTest, AProductReadElsewhereIsLeftAlone) {
  // Fetched, read by another node, or waited for.
  std::unique_ptr<Graph> g = MakeGraph();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(Find(*g, {"relu", "product"}).fusions.size(), 0u);
  std::unique_ptr<Graph> read = MakeGraph(R"pb(
    node {
      name: "twice"
      op: "Relu"
      input: "product"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    })pb");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(Find(*read, {"relu", "twice"}).fusions.size(), 0u);
  std::unique_ptr<Graph> waited = MakeGraph(R"pb(
    node { name: "after" op: "NoOp" input: "^product" })pb");
  ASSERT_NE(waited, nullptr);
  EXPECT_EQ(Find(*waited, {"relu"}, {"after"}).fusions.size(), 0u);
}

TEST(BiasActivationFusionTest, OnlyFloatChainsAreFused) {
  std::unique_ptr<Graph> g = MakeGraph("", "DT_DOUBLE");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(Find(*g, {"relu"}).fusions.size(), 0u);
}

}  // namespace
}  // namespace tensorflow_ipu
