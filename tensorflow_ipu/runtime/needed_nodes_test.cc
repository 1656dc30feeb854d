// Tests of NeededNodes: what a run executes, in which order.
#include "tensorflow_ipu/runtime/needed_nodes.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"

namespace tensorflow_ipu {
namespace {

std::unique_ptr<Graph> MakeGraph(const std::string& text) {
  return Graph::FromGraphDef(GraphDefFromText(text).value()).value();
}

// The names of `nodes`, sorted, after checking they come in increasing id
// order (the order callers rely on: ids are topological).
std::vector<std::string> Names(const std::vector<const Node*>& nodes) {
  std::vector<std::string> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(nodes[i - 1]->id(), nodes[i]->id());
    }
    out.push_back(nodes[i]->name());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// a, b placeholders; c = a+b; d = c+c; e = a+a (not needed by d);
// f has a control input from e.
constexpr char kGraph[] = R"pb(
  node {
    name: "a" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node {
    name: "b" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node { name: "c" op: "TestAdd" input: "a" input: "b" }
  node { name: "d" op: "TestAdd" input: "c" input: "c" }
  node { name: "e" op: "TestAdd" input: "a" input: "a" }
  node { name: "f" op: "TestAdd" input: "b" input: "b" input: "^e" }
)pb";

TEST(NeededNodesTest, FollowsDataEdgesInIdOrder) {
  auto g = MakeGraph(kGraph);
  auto needed = NeededNodes({}, {{g->FindNode("d"), 0}}, {});
  EXPECT_EQ(Names(needed), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(NeededNodesTest, StopsAtFedTensors) {
  auto g = MakeGraph(kGraph);
  auto needed =
      NeededNodes({{g->FindNode("c"), 0}}, {{g->FindNode("d"), 0}}, {});
  EXPECT_EQ(Names(needed), (std::vector<std::string>{"d"}));
  // A fetch that is itself fed needs nothing.
  EXPECT_TRUE(
      NeededNodes({{g->FindNode("c"), 0}}, {{g->FindNode("c"), 0}}, {}).empty());
}

TEST(NeededNodesTest, FollowsControlEdgesFromTargets) {
  auto g = MakeGraph(kGraph);
  auto needed = NeededNodes({}, {}, {g->FindNode("f")});
  EXPECT_EQ(Names(needed), (std::vector<std::string>{"a", "b", "e", "f"}));
}

TEST(NeededNodesTest, ManyFeedsBehaveAsFew) {
  // Past a handful of feeds the lookup switches to a set; the answer must
  // not change.
  auto g = MakeGraph(kGraph);
  std::vector<TensorRef> feeds = {{g->FindNode("c"), 0}};
  for (int k = 1; k < 20; ++k) feeds.push_back({g->FindNode("e"), k});
  auto needed = NeededNodes(feeds, {{g->FindNode("d"), 0}}, {g->FindNode("f")});
  EXPECT_EQ(Names(needed), (std::vector<std::string>{"a", "b", "d", "e", "f"}));
  EXPECT_TRUE(IsFed(feeds, {g->FindNode("e"), 7}));
  EXPECT_FALSE(IsFed(feeds, {g->FindNode("e"), 0}));
}

TEST(NeededNodesTest, DeepChainDoesNotExhaustTheStack) {
  std::string text = R"pb(node {
    name: "n0" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  })pb";
  constexpr int kDepth = 50000;
  for (int i = 1; i < kDepth; ++i) {
    text += " node { name: \"n" + std::to_string(i) +
            "\" op: \"TestAdd\" input: \"n" + std::to_string(i - 1) +
            "\" input: \"n" + std::to_string(i - 1) + "\" }";
  }
  auto g = MakeGraph(text);
  auto needed = NeededNodes({}, {{g->FindNode("n" + std::to_string(kDepth - 1)), 0}}, {});
  ASSERT_EQ(needed.size(), static_cast<size_t>(kDepth));
  for (int i = 0; i < kDepth; ++i) EXPECT_EQ(needed[i]->id(), g->FindNode("n" + std::to_string(i))->id());
}

}  // namespace
}  // namespace tensorflow_ipu
