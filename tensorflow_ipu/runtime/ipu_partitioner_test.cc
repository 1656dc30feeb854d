// Partitioning: a placed graph in (text), clusters and rewired names out.
#include "tensorflow_ipu/runtime/ipu_partitioner.h"

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"

namespace tensorflow_ipu {
namespace {

// a, b on the host; x = a+b on IPU 0; h = x+x on the host; y = h+b on IPU 0;
// z = a+a on IPU 1.
constexpr char kGraph[] = R"pb(
  node {
    name: "a" op: "Placeholder" device: "cpu"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node {
    name: "b" op: "Placeholder" device: "cpu"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node { name: "x" op: "TestAdd" input: "a" input: "b" device: "/device:IPU:0" }
  node { name: "h" op: "TestAdd" input: "x" input: "x" device: "cpu" }
  node { name: "y" op: "TestAdd" input: "h" input: "b" device: "/device:IPU:0" }
  node { name: "z" op: "TestAdd" input: "a" input: "a" device: "/device:IPU:1" }
)pb";

struct Fixture {
  std::unique_ptr<Graph> graph;
  std::vector<TensorRef> feeds, fetches;
  std::vector<const Node*> needed;
  Placement placement;

  Fixture() {
    graph = Graph::FromGraphDef(GraphDefFromText(kGraph).value()).value();
    feeds = {{graph->FindNode("a"), 0}, {graph->FindNode("b"), 0}};
    fetches = {{graph->FindNode("y"), 0}, {graph->FindNode("z"), 0},
               {graph->FindNode("h"), 0}};
    needed = NeededNodes(feeds, fetches, {});
    for (const Node* n : needed) {
      const DeviceName& d = n->requested_device();
      placement[n->id()] = {d.IsIpu(), d.IsIpu() ? d.id : 0};
    }
  }
};

TEST(IpuPartitionerTest, IpuHostIpuMakesTwoPhasesAndDevicesSplit) {
  Fixture f;
  auto run = PartitionForIpu(*f.graph, f.feeds, f.fetches, {}, f.needed,
                             f.placement);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->clusters.size(), 3u);
  // Level 0: x on IPU 0 and z on IPU 1; level 1: y on IPU 0.
  EXPECT_EQ(run->clusters[0].ir.ToString(),
            "cluster cluster_0\n"
            "%0 a:0 = _Arg() -> float[2] shard=-1\n"
            "%1 b:0 = _Arg() -> float[2] shard=-1\n"
            "%2 x = TestAdd(%0:0, %1:0) -> float[2] shard=-1\n"
            "results (%2:0)\n");
  EXPECT_EQ(run->clusters[1].ipu_ordinal, 1);
  EXPECT_EQ(run->clusters[2].ir.ToString(),
            "cluster cluster_2\n"
            "%0 h:0 = _Arg() -> float[2] shard=-1\n"
            "%1 b:0 = _Arg() -> float[2] shard=-1\n"
            "%2 y = TestAdd(%0:0, %1:0) -> float[2] shard=-1\n"
            "results (%2:0)\n");
  EXPECT_EQ(run->fetches,
            (std::vector<std::string>{"_ipu_cluster_2/output_0",
                                      "_ipu_cluster_1/output_0", "h:0"}));
  // The partitioned graph is valid, and h now reads cluster 0's result.
  auto g = Graph::FromGraphDef(run->graph);
  ASSERT_TRUE(g.ok()) << g.status();
  const Node* h = (*g)->FindNode("h");
  EXPECT_EQ(h->input(0).node->name(), "_ipu_cluster_0/output_0");
  const Node* c2 = (*g)->FindNode("_ipu_cluster_2");
  ASSERT_NE(c2, nullptr);
  EXPECT_EQ(c2->num_inputs(), 2);  // b and h, both float
}

TEST(IpuPartitionerTest, DynamicShapeInAClusterNamesTheTensor) {
  Fixture f;
  GraphDef def = GraphDefFromText(kGraph).value();
  for (int i : {0, 1}) {
    def.mutable_node(i)->mutable_attr()->at("shape").mutable_shape()
        ->mutable_dim(0)->set_size(-1);
  }
  f.graph = Graph::FromGraphDef(def).value();
  f.feeds = {{f.graph->FindNode("a"), 0}, {f.graph->FindNode("b"), 0}};
  f.fetches = {{f.graph->FindNode("x"), 0}};
  f.needed = NeededNodes(f.feeds, f.fetches, {});
  f.placement = Placement();
  for (const Node* n : f.needed) {
    f.placement[n->id()] = {n->requested_device().IsIpu(), 0};
  }
  auto run = PartitionForIpu(*f.graph, f.feeds, f.fetches, {}, f.needed,
                             f.placement);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(run.status().message().find("'a:0' is [?]"), std::string::npos)
      << run.status();
}

// An op of this test only that computes nothing: the partitioner knows it
// by its trait, not by its name.
REGISTER_OP(OpDefBuilder("PartitionerTestForward")
                .Input("input", DT_FLOAT)
                .Output("output", DT_FLOAT)
                .SetPassesThrough()
                .SetShapeFn(shape_fns::UnchangedShape));

// x = forward(a) alone on IPU 0 (nothing to compute: run on the host);
// y = forward(a) + a on IPU 1 (a cluster, with the forward in it).
constexpr char kPassThroughGraph[] = R"pb(
  node {
    name: "a" op: "Placeholder" device: "cpu"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node { name: "x" op: "PartitionerTestForward" input: "a" device: "/device:IPU:0" }
  node { name: "f" op: "PartitionerTestForward" input: "a" device: "/device:IPU:1" }
  node { name: "y" op: "TestAdd" input: "f" input: "a" device: "/device:IPU:1" }
)pb";

TEST(IpuPartitionerTest, AClusterOfPassThroughOpsOnlyRunsOnTheHost) {
  auto graph = Graph::FromGraphDef(GraphDefFromText(kPassThroughGraph).value());
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Graph& g = **graph;
  std::vector<TensorRef> feeds = {{g.FindNode("a"), 0}};
  std::vector<TensorRef> fetches = {{g.FindNode("x"), 0}, {g.FindNode("y"), 0}};
  std::vector<const Node*> needed = NeededNodes(feeds, fetches, {});
  Placement placement;
  for (const Node* n : needed) {
    const DeviceName& d = n->requested_device();
    placement[n->id()] = {d.IsIpu(), d.IsIpu() ? d.id : 0};
  }
  auto run = PartitionForIpu(g, feeds, fetches, {}, needed, placement);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->clusters.size(), 1u);
  EXPECT_EQ(run->clusters[0].ipu_ordinal, 1);
  EXPECT_EQ(run->clusters[0].ir.ToString(),
            "cluster cluster_0\n"
            "%0 a:0 = _Arg() -> float[2] shard=-1\n"
            "%1 f = PartitionerTestForward(%0:0) -> float[2] shard=-1\n"
            "%2 y = TestAdd(%1:0, %0:0) -> float[2] shard=-1\n"
            "results (%2:0)\n");
  // x is fetched from the host node itself.
  EXPECT_EQ(run->fetches,
            (std::vector<std::string>{"x:0", "_ipu_cluster_0/output_0"}));
}

}  // namespace
}  // namespace tensorflow_ipu
