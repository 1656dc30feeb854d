#include "tools/ipu_saved_model_cli/convert/pipeline/node_costs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;

// x -> a/MatMul(x, w) -> b/Relu -> c/Relu -> d/Neg -> y; w is 2x3 floats.
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" }
  node {
    name: "w"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {
            dim { size: 2 }
            dim { size: 3 }
          }
        }
      }
    }
  }
  node { name: "w/read" op: "Identity" input: "w" }
  node { name: "a/MatMul" op: "MatMul" input: "x" input: "w/read" }
  node { name: "b/Relu" op: "Relu" input: "a/MatMul" }
  node { name: "c/Relu" op: "Relu" input: "b/Relu" }
  node { name: "d/Neg" op: "Neg" input: "c/Relu" }
  node { name: "y" op: "Identity" input: "d/Neg" }
)pb";

constexpr char kProfile[] = R"json({
  "target": {"numIPUs": 2, "tilesPerIPU": 2, "bytesPerTile": 1000},
  "memory": {"tiles": [{"tile": 0, "total": 100}, {"tile": 1, "total": 50},
                       {"tile": 2, "total": 7}, {"tile": 3, "total": 0}]},
  "steps": [
    {"kind": "Sequence", "name": "", "ipus": [], "totalCycles": 9999},
    {"kind": "StreamCopy(host->device)", "name": "stream x:0", "ipus": [0], "totalCycles": 600},
    {"kind": "Execute", "name": "a/MatMul", "ipus": [0], "totalCycles": 700},
    {"kind": "Execute", "name": "a/MatMul/reduce", "ipus": [0], "totalCycles": 50},
    {"kind": "Execute", "name": "b/Relu", "ipus": [0], "totalCycles": 200},
    {"kind": "Copy", "name": "b/Relu/copy_0_to_ipu_1", "ipus": [0, 1], "totalCycles": 1500},
    {"kind": "Execute", "name": "d/Neg", "ipus": [1], "totalCycles": 90}
  ],
  "computeSets": [
    {"name": "a/MatMul", "vertexStateBytes": 64, "exchangeBufferBytes": 16},
    {"name": "b/Relu", "vertexStateBytes": 8, "exchangeBufferBytes": 0}
  ]
})json";

class NodeCostsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<GraphDef> graph = GraphDefFromText(kGraph);
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = *graph;
    (*signature_.mutable_inputs())["x"].set_name("x:0");
    absl::StatusOr<ServingGraph> g = ServingGraph::Make(graph_, signature_);
    ASSERT_TRUE(g.ok()) << g.status();
    serving_ = std::make_unique<ServingGraph>(*std::move(g));
  }
  GraphDef graph_;
  SignatureDef signature_;
  std::unique_ptr<ServingGraph> serving_;
};

TEST_F(NodeCostsTest, StepsBelongToTheLongestNodeNamePrefix) {
  absl::StatusOr<ProfileSummary> p =
      SummarizeProfiles({nlohmann::json::parse(kProfile)}, *serving_);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->node_cycles,
            (std::map<std::string, int64_t>{{"a/MatMul", 750}, {"b/Relu", 200}, {"d/Neg", 90}}));
  EXPECT_EQ(p->node_vertex_bytes,
            (std::map<std::string, int64_t>{{"a/MatMul", 80}, {"b/Relu", 8}}));
  // Execute steps on one IPU only: no copy, no stream.
  EXPECT_THAT(p->ipu_execute_cycles, ElementsAre(950, 90));
  EXPECT_THAT(p->ipu_memory_bytes, ElementsAre(150, 7));
  EXPECT_EQ(p->ipu_capacity_bytes, 2000);
}

TEST_F(NodeCostsTest, MissingNodesGetTheirOpTypesMeanElse500) {
  absl::StatusOr<ProfileSummary> p =
      SummarizeProfiles({nlohmann::json::parse(kProfile)}, *serving_);
  ASSERT_TRUE(p.ok()) << p.status();
  p->node_cycles.erase("d/Neg");
  // c/Relu has no step: b/Relu's 200 (the Relu mean); d/Neg none: 500.
  EXPECT_THAT(ComputeNodeCosts(*p, *serving_, CostKind::kCycles), ElementsAre(750, 200, 200, 500));
  // Memory: a/MatMul's compute sets (80) plus w's 24 bytes through w/read;
  // c/Relu the Relu mean (8); d/Neg nothing known: 0.
  EXPECT_THAT(ComputeNodeCosts(*p, *serving_, CostKind::kMemory), ElementsAre(104, 8, 8, 0));
}

TEST_F(NodeCostsTest, BadProfilesNameTheField) {
  absl::Status s = SummarizeProfiles({nlohmann::json::parse("{}")}, *serving_).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "profile.json: no 'target' object");
  s = SummarizeProfiles({nlohmann::json::parse(R"({"target": {"numIPUs": 1, "tilesPerIPU": 2}})")},
                        *serving_)
          .status();
  EXPECT_EQ(s.message(), "profile.json: target has no integer field 'bytesPerTile'");
  s = SummarizeProfiles({nlohmann::json::parse(
                            R"({"target": {"numIPUs": 1, "tilesPerIPU": 1, "bytesPerTile": 1},
                  "steps": [{"kind": "Execute", "name": 5, "totalCycles": "many"}]})")},
                        *serving_)
          .status();
  EXPECT_EQ(s.message(), "profile.json: a step has no integer field 'totalCycles'");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
