#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_solution.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/json_file.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// x -> mul(x, w) -> add(mul, b/read) -> relu -> y, all but x on the IPU.
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" }
  node { name: "w" op: "Const" device: "/device:IPU:0" }
  node { name: "b" op: "Const" device: "/device:IPU:0" }
  node { name: "b/read" op: "Identity" input: "b" device: "/device:IPU:0" }
  node { name: "mul" op: "Mul" input: "x" input: "w" device: "/device:IPU:0" }
  node { name: "add" op: "AddV2" input: "mul" input: "b/read" device: "/device:IPU:0" }
  node { name: "relu" op: "Relu" input: "add" device: "/device:IPU:0" }
  node { name: "y" op: "Identity" input: "relu" device: "/device:IPU:0" }
)pb";

class PipelineSolutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<GraphDef> graph = GraphDefFromText(kGraph);
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = *graph;
    (*signature_.mutable_inputs())["x"].set_name("x:0");
    (*signature_.mutable_outputs())["y"].set_name("y:0");
    absl::StatusOr<ServingGraph> g = ServingGraph::Make(graph_, signature_);
    ASSERT_TRUE(g.ok()) << g.status();
    serving_ = std::make_unique<ServingGraph>(*std::move(g));
  }

  absl::Status Parse(const std::string& text, PipelineSolution* out = nullptr) {
    absl::StatusOr<nlohmann::json> json = ParseJson(text, "solution file s.json");
    if (!json.ok()) return json.status();
    absl::StatusOr<PipelineSolution> s = SolutionFromJson(*json, *serving_, "solution file s.json");
    if (s.ok() && out != nullptr) *out = *s;
    return s.status();
  }

  GraphDef graph_;
  SignatureDef signature_;
  std::unique_ptr<ServingGraph> serving_;
};

TEST_F(PipelineSolutionTest, WriterListsEveryNodeAndPassThroughNodesFollowConsumers) {
  absl::StatusOr<PipelineSolution> s =
      MakeSolution(*serving_, {{"mul", 0}, {"add", 1}, {"relu", 1}}, {1, 0});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(SolutionToJson(*s).dump(),
            R"({"device_mapping":[1,0],"pipeline_mapping":{"add":1,"b":1,"b/read":1,"mul":0,)"
            R"("relu":1,"w":0,"x":0,"y":1}})");
  const std::string path = ::testing::TempDir() + "/solution_roundtrip/s.pipeconf";
  std::filesystem::remove_all(::testing::TempDir() + "/solution_roundtrip");
  TF_ASSERT_OK(WriteSolutionFile(path, *s));
  absl::StatusOr<PipelineSolution> back = ReadSolutionFile(path, *serving_);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->pipeline_mapping, s->pipeline_mapping);
  EXPECT_EQ(back->device_mapping, s->device_mapping);
}

TEST_F(PipelineSolutionTest, ReaderFillsPassThroughNodesAndDefaultDevices) {
  PipelineSolution s;
  absl::Status status = Parse(R"({"pipeline_mapping": {"mul": 0, "add": 1, "relu": 2}})", &s);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(s.device_mapping, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(s.pipeline_mapping.at("w"), 0);
  EXPECT_EQ(s.pipeline_mapping.at("b/read"), 1);
  EXPECT_EQ(s.pipeline_mapping.at("y"), 2);
}

TEST_F(PipelineSolutionTest, ReaderRules) {
  auto message = [&](const std::string& text) {
    absl::Status s = Parse(text);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << text;
    return std::string(s.message());
  };
  EXPECT_EQ(message(R"({"device_mapping": [0]})"),
            "solution file s.json has no pipeline_mapping (node name -> pipeline stage)");
  // The original ignored the misspelling its own docs used.
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": 0, "add": 0, "relu": 0},
                        "device_maping": [1]})"),
            "Unknown key 'device_maping' in solution file s.json; a solution has the keys "
            "pipeline_mapping and device_mapping");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": 0, "add": 0, "relu": 0, "nope": 0}})"),
            "node 'nope' of pipeline_mapping in solution file s.json is not in the graph");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": 0, "add": 0}})"),
            "The node `relu` is not fully set with `pipeline_stage` in solution file s.json: "
            "every node but the signature inputs and Const, Identity and Pack needs a stage");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": 0, "add": 2, "relu": 2}})"),
            "pipeline stage 1 of solution file s.json has no node: stages must be numbered from "
            "0 to 2 without gaps");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": 1, "add": 0, "relu": 1}})"),
            "The pipeline stages of solution file s.json are not in topology order: node 'add' "
            "(stage 0) reads 'mul' (stage 1); a stage may read only the signature inputs and "
            "nodes of its own or earlier stages");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": 0, "add": 1, "relu": 1},
                        "device_mapping": [0, 1, 2]})"),
            "The length of the device info given (3) must be equal to the number of pipeline "
            "stages (2).");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": -1, "add": 0, "relu": 0}})"),
            "the stage of node 'mul' in solution file s.json must be an integer >= 0, not -1");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": 0, "add": 0, "relu": 99999999999}})"),
            "the stage of node 'relu' in solution file s.json must be an integer >= 0, not "
            "99999999999");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": "0", "add": 0, "relu": 0}})"),
            "the stage of node 'mul' in solution file s.json must be an integer >= 0, not \"0\"");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": 0, "add": 0, "relu": 0},
                        "device_mapping": [1.5]})"),
            "device_mapping[0] in solution file s.json must be an IPU number >= 0, not 1.5");
  EXPECT_EQ(message(R"({"pipeline_mapping": [], "device_mapping": [0]})"),
            "pipeline_mapping in solution file s.json must be an object (node name -> pipeline "
            "stage), not an array");
  EXPECT_EQ(message(R"({"pipeline_mapping": {"mul": 0, "add": 0, "relu": 0},
                        "device_mapping": 0})"),
            "device_mapping in solution file s.json must be an array (the IPU of each stage), "
            "not a number");
  EXPECT_EQ(message("[1]"),
            "solution file s.json must hold a JSON object with pipeline_mapping and "
            "device_mapping, not an array");
  EXPECT_EQ(message("{\"pipeline_mapping\": "),
            "solution file s.json is not valid JSON (error at "
            "byte 22)");
}

TEST_F(PipelineSolutionTest, MissingFileIsNotFound) {
  absl::Status s = ReadSolutionFile("/nonexistent/s.pipeconf", *serving_).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "solution file /nonexistent/s.pipeconf is not a readable file");
}

TEST_F(PipelineSolutionTest, ApplyMarksIpuNodesWithStageAndShard) {
  PipelineSolution s;
  absl::Status status = Parse(
      R"({"pipeline_mapping": {"mul": 0, "add": 1, "relu": 1}, "device_mapping": [3, 2]})", &s);
  ASSERT_TRUE(status.ok()) << status;
  TF_ASSERT_OK(ApplySolution(s, &graph_));
  std::map<std::string, std::pair<int64_t, int64_t>> marks;
  for (const NodeDef& n : graph_.node()) {
    auto stage = n.attr().find(kPipelineStageAttr);
    auto shard = n.attr().find(kShardAttr);
    if (stage == n.attr().end()) {
      EXPECT_EQ(n.name(), "x");  // the host input is left alone
      EXPECT_EQ(shard, n.attr().end());
      continue;
    }
    marks[n.name()] = {stage->second.i(), shard->second.i()};
  }
  using P = std::pair<int64_t, int64_t>;
  EXPECT_EQ(marks, (std::map<std::string, P>{{"w", P{0, 3}},
                                             {"mul", P{0, 3}},
                                             {"b", P{1, 2}},
                                             {"b/read", P{1, 2}},
                                             {"add", P{1, 2}},
                                             {"relu", P{1, 2}},
                                             {"y", P{1, 2}}}));
}

TEST_F(PipelineSolutionTest, ApplyNeedsNodesOnAnIpu) {
  PipelineSolution s;
  TF_ASSERT_OK(Parse(R"({"pipeline_mapping": {"mul": 0, "add": 0, "relu": 0}})", &s));
  for (NodeDef& n : *graph_.mutable_node()) n.clear_device();
  const GraphDef before = graph_;
  absl::Status status = ApplySolution(s, &graph_);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "No ops placed on IPU device to pipeline: convert with IPU placement (without "
            "--no_ipu_placement)");
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(graph_, before));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
