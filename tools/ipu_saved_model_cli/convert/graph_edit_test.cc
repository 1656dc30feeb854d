#include "tools/ipu_saved_model_cli/convert/graph_edit.h"

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

TEST(GraphEditTest, ParsesInputStrings) {
  InputRef a = ParseInput("a");
  EXPECT_EQ(a.node, "a");
  EXPECT_EQ(a.index, 0);
  EXPECT_FALSE(a.control);
  InputRef b = ParseInput("scope/b:2");
  EXPECT_EQ(b.node, "scope/b");
  EXPECT_EQ(b.index, 2);
  InputRef c = ParseInput("^c");
  EXPECT_EQ(c.node, "c");
  EXPECT_TRUE(c.control);
  EXPECT_EQ(InputString("b", 0), "b");
  EXPECT_EQ(InputString("b", 2), "b:2");
  EXPECT_EQ(TensorName("b", 0), "b:0");
}

TEST(GraphEditTest, PlacingOnTheIpuSetsTheDeviceAndTheXlaAttrs) {
  NodeDef n;
  n.set_name("a");
  PlaceOnIpu(&n);
  EXPECT_EQ(n.device(), "/device:IPU:0");
  EXPECT_TRUE(OnIpu(n));
  EXPECT_TRUE(n.attr().at("_XlaCompile").b());
  EXPECT_EQ(n.attr().at("_XlaScope").s(), "jit_scope_ipu_0");
  EXPECT_FALSE(n.attr().at("_XlaSeparateCompiledGradients").b());
}

TEST(GraphEditTest, TypesOfInputsAndOutputsComeFromTheOpAndTheAttrs) {
  absl::StatusOr<GraphDef> g = GraphDefFromText(R"pb(
    node { name: "cast" op: "Cast"
           attr { key: "SrcT" value { type: DT_HALF } }
           attr { key: "DstT" value { type: DT_FLOAT } } }
    node { name: "concat" op: "ConcatV2"
           attr { key: "N" value { i: 2 } }
           attr { key: "T" value { type: DT_HALF } } }
    node { name: "unknown" op: "NoSuchOp" }
  )pb");
  ASSERT_TRUE(g.ok()) << g.status();
  const NodeDef& cast = g->node(0);
  EXPECT_EQ(InputDataType(cast, 0), DT_HALF);
  EXPECT_EQ(OutputDataType(cast, 0), DT_FLOAT);
  EXPECT_EQ(InputDataType(cast, 1), std::nullopt);
  const NodeDef& concat = g->node(1);
  EXPECT_EQ(InputDataType(concat, 0), DT_HALF);
  EXPECT_EQ(InputDataType(concat, 1), DT_HALF);
  // The axis, after the N values: Tidx's default.
  EXPECT_EQ(InputDataType(concat, 2), DT_INT32);
  EXPECT_EQ(InputDataType(g->node(2), 0), std::nullopt);
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
