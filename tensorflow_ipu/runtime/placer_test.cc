// Tests of placement rules, with a fake IPU environment.
#include "tensorflow_ipu/runtime/placer.h"

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/core/op_registry.h"

namespace tensorflow_ipu {
namespace {

std::unique_ptr<Graph> MakeGraph(const std::string& text) {
  return Graph::FromGraphDef(GraphDefFromText(text).value()).value();
}

constexpr char kGraph[] = R"pb(
  node {
    name: "a" op: "Placeholder" device: "/device:IPU:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node { name: "cpu_add" op: "TestAdd" input: "a" input: "a" device: "cpu" }
  node { name: "ipu_add" op: "TestAdd" input: "a" input: "a" device: "/device:IPU:1" }
)pb";

std::vector<const Node*> Nodes(const Graph& g) {
  std::vector<const Node*> out;
  for (const auto& n : g.nodes()) out.push_back(n.get());
  return out;
}

PlacementEnv Env(bool configured, int devices, bool lowered) {
  PlacementEnv env;
  env.ipu_configured = configured;
  env.num_ipu_devices = devices;
  env.has_ipu_lowering = [lowered](absl::string_view) { return lowered; };
  return env;
}

TEST(PlacerTest, PlaceholdersAndCpuNodesStayOnTheHost) {
  auto g = MakeGraph(kGraph);
  auto p = PlaceNodes(Nodes(*g), Env(true, 2, true));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->at(g->FindNode("a")->id()).on_ipu);
  EXPECT_FALSE(p->at(g->FindNode("cpu_add")->id()).on_ipu);
  EXPECT_TRUE(p->at(g->FindNode("ipu_add")->id()).on_ipu);
  EXPECT_EQ(p->at(g->FindNode("ipu_add")->id()).ipu_ordinal, 1);
  EXPECT_TRUE(AnyNodeRequestsIpu(Nodes(*g)));
}

TEST(PlacerTest, NoIpuSystemIsFailedPrecondition) {
  auto g = MakeGraph(kGraph);
  absl::Status s = PlaceNodes(Nodes(*g), Env(false, 0, true)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("call configure_ipu_system()"), std::string::npos)
      << s;
}

TEST(PlacerTest, OrdinalBeyondTheDevicesNamesNodeOrdinalAndCount) {
  auto g = MakeGraph(kGraph);
  absl::Status s = PlaceNodes(Nodes(*g), Env(true, 1, true)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Node 'ipu_add' (TestAdd) is placed on "
                             "/device:IPU:1, but the IPU configuration has 1 "
                             "device(s)"),
            std::string::npos)
      << s;
}

TEST(PlacerTest, OpWithoutLoweringNamesNodeAndOp) {
  auto g = MakeGraph(kGraph);
  absl::Status s = PlaceNodes(Nodes(*g), Env(true, 2, false)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Cannot place node 'ipu_add' on /device:IPU:1: "
                             "op TestAdd has no IPU lowering"),
            std::string::npos)
      << s;
}

// Ops of this test only, with the traits the placer decides by: it knows
// them by their traits alone, not by name.
REGISTER_OP(OpDefBuilder("PlacerTestHostValue")
                .Output("output", DT_FLOAT)
                .SetIsHostOnly()
                .SetShapeFn(shape_fns::ScalarShape));
REGISTER_OP(OpDefBuilder("PlacerTestRefVariable")
                .Output("ref", DT_FLOAT)
                .SetIsStateful()
                .SetIsReferenceVariable()
                .SetShapeFn(shape_fns::ScalarShape));
REGISTER_OP(OpDefBuilder("PlacerTestOverwrite")
                .Input("ref", DT_FLOAT)
                .Input("value", DT_FLOAT)
                .SetIsStateful()
                .SetWritesVariable(0, VariableWrite::kOverwrite));

TEST(PlacerTest, HostOnlyOpsStayOnTheHostWhateverTheirDevice) {
  auto g = MakeGraph(R"pb(
    node { name: "v" op: "PlacerTestHostValue" device: "/device:IPU:0" }
    node { name: "add" op: "TestAdd" input: "v" input: "v" device: "/device:IPU:0" }
  )pb");
  auto p = PlaceNodes(Nodes(*g), Env(true, 1, true));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->at(g->FindNode("v")->id()).on_ipu);
  EXPECT_TRUE(p->at(g->FindNode("add")->id()).on_ipu);
  // Alone, it does not even ask for the IPU.
  EXPECT_FALSE(AnyNodeRequestsIpu({g->FindNode("v")}));
  EXPECT_TRUE(AnyNodeRequestsIpu({g->FindNode("add")}));
}

TEST(PlacerTest, WritesOfAReferenceVariableAreColocatedWithIt) {
  auto g = MakeGraph(R"pb(
    node { name: "var" op: "PlacerTestRefVariable" device: "cpu" }
    node { name: "value" op: "PlacerTestRefVariable" device: "cpu" }
    node {
      name: "write" op: "PlacerTestOverwrite" input: "var" input: "value"
      device: "/device:IPU:0"
    }
  )pb");
  auto p = PlaceNodes(Nodes(*g), Env(true, 1, true));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->at(g->FindNode("write")->id()).on_ipu);
}

TEST(PlacerTest, AReferenceVariableOnTheIpuIsRefusedAsTensorFlowDoes) {
  auto g = MakeGraph(R"pb(
    node { name: "var" op: "PlacerTestRefVariable" device: "/device:IPU:0" }
    node { name: "value" op: "PlacerTestRefVariable" device: "cpu" }
    node {
      name: "write" op: "PlacerTestOverwrite" input: "var" input: "value"
      device: "/device:IPU:0"
    }
  )pb");
  absl::Status s = PlaceNodes(Nodes(*g), Env(true, 1, true)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Cannot assign a device for operation 'var': "
                             "Could not satisfy explicit device "
                             "specification '/device:IPU:0' because no "
                             "supported kernel for IPU devices is available."),
            std::string::npos)
      << s;
  // The colocation group: the variable and the op that writes it.
  EXPECT_NE(s.message().find("types and devices:\n"
                             "PlacerTestOverwrite: CPU IPU\n"
                             "PlacerTestRefVariable: CPU IPU\n"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace tensorflow_ipu
