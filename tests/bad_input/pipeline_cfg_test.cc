// Bad pipeline_cfg values and solution files for `convert ... ipu`'s
// pipelining converters: each is an error with TensorFlow's code naming the
// key, the file or the node, and a good solution still applies afterwards.
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_converter.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using saved_model_testing::FreshTestDir;

constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" }
  node { name: "w" op: "Const" device: "/device:IPU:0" }
  node { name: "mul" op: "Mul" input: "x" input: "w" device: "/device:IPU:0" }
  node { name: "neg" op: "Neg" input: "mul" device: "/device:IPU:0" }
  node { name: "y" op: "Identity" input: "neg" device: "/device:IPU:0" }
)pb";

constexpr char kGoodSolution[] =
    R"({"pipeline_mapping": {"mul": 0, "neg": 1}, "device_mapping": [0, 1]})";

class BadPipelineCfgTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("bad_pipeline_cfg");
    absl::StatusOr<GraphDef> graph = GraphDefFromText(kGraph);
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = *graph;
    (*signature_.mutable_inputs())["x"].set_name("x:0");
    (*signature_.mutable_outputs())["y"].set_name("y:0");
  }
  void TearDown() override {
    // The converters still work: a good solution loads and applies.
    Write("good.pipeconf", kGoodSolution);
    GraphDef graph;
    absl::Status s = Apply(R"({"converter": "load", "solution_path": "good.pipeconf"})", &graph);
    ASSERT_TRUE(s.ok()) << s;
    for (const NodeDef& n : graph.node()) {
      if (n.name() == "neg") {
        EXPECT_EQ(n.attr().at(kShardAttr).i(), 1);
      }
    }
  }

  void Write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << bytes;
  }

  static PipelineContext TwoIpus() {
    PipelineContext context;
    context.num_ipus = 2;
    return context;
  }

  absl::Status Apply(const std::string& cfg_text, GraphDef* graph,
                     PipelineContext context = TwoIpus()) {
    context.working_dir = dir_;
    absl::StatusOr<nlohmann::json> cfg = ParseJsonForTest(cfg_text);
    if (!cfg.ok()) return cfg.status();
    absl::StatusOr<std::unique_ptr<Converter>> c = MakePipelineConverter(*cfg, context);
    if (!c.ok()) return c.status();
    *graph = graph_;
    SignatureDef signature = signature_;
    return (*c)->Apply(graph, &signature);
  }

  static absl::StatusOr<nlohmann::json> ParseJsonForTest(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return absl::InvalidArgumentError("bad test JSON");
    return j;
  }

  // Loads solution file `bytes` and returns the error.
  absl::Status LoadSolution(const std::string& bytes) {
    Write("s.pipeconf", bytes);
    GraphDef graph;
    absl::Status s = Apply(R"({"converter": "load", "solution_path": "s.pipeconf"})", &graph);
    EXPECT_FALSE(s.ok());
    return s;
  }

  std::string dir_;
  GraphDef graph_;
  SignatureDef signature_;
};

TEST_F(BadPipelineCfgTest, EmptyConfig) {
  GraphDef graph;
  absl::Status s = Apply("{}", &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("`converter` argument is required"), std::string::npos)
      << s;
}

TEST_F(BadPipelineCfgTest, ConfigOfTheWrongType) {
  GraphDef graph;
  absl::Status s = Apply(R"("auto")", &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("pipeline_cfg must be a JSON object"), std::string::npos)
      << s;
  s = Apply(R"({"converter": "manual", "manual_pipeline_config": "^mul", "device_info": [0]})",
            &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("'manual_pipeline_config' must be a list of lists"),
            std::string::npos)
      << s;
}

TEST_F(BadPipelineCfgTest, HugeNumbers) {
  GraphDef graph;
  absl::Status s =
      Apply(R"({"converter": "auto", "max_ipu_quantity": 1180591620717411303424})", &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("'max_ipu_quantity' must be an integer"),
            std::string::npos)
      << s;
  s = Apply(R"({"converter": "auto", "fine_tune_iter": 9223372036854775807})", &graph);
  EXPECT_NE(std::string(s.message()).find("'fine_tune_iter' must be from 0 to 1000"),
            std::string::npos)
      << s;
  s = LoadSolution(R"({"pipeline_mapping": {"mul": 0, "neg": 18446744073709551615}})");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("the stage of node 'neg'"), std::string::npos) << s;
  PipelineContext context = TwoIpus();
  context.batch_size = -5;
  s = Apply(R"({"converter": "auto"})", &graph, context);
  EXPECT_NE(std::string(s.message()).find("batch_size must be at least 1"), std::string::npos) << s;
}

TEST_F(BadPipelineCfgTest, MissingSolutionFileAndADirectory) {
  GraphDef graph;
  absl::Status s = Apply(R"({"converter": "load", "solution_path": "none.pipeconf"})", &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(s.message()).find("none.pipeconf is not a readable file"),
            std::string::npos)
      << s;
  std::filesystem::create_directories(dir_ + "/adir");
  s = Apply(R"({"converter": "load", "solution_path": "adir"})", &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(s.message()).find("adir is not a readable file"), std::string::npos) << s;
}

TEST_F(BadPipelineCfgTest, EmptyAndGarbageSolutionFiles) {
  for (const std::string& bytes : {std::string(), std::string("\xff\xfe\x00garbage", 10),
                                   std::string("{\"pipeline_mapping\":")}) {
    absl::Status s = LoadSolution(bytes);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(s.message()).find("s.pipeconf is not valid JSON"), std::string::npos)
        << s;
  }
}

TEST_F(BadPipelineCfgTest, DeeplyNestedSolutionFile) {
  // 100,000 nested arrays: parsed without recursion, refused by type.
  absl::Status s = LoadSolution(std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("must hold a JSON object"), std::string::npos) << s;
}

TEST_F(BadPipelineCfgTest, SolutionOfTheWrongTypes) {
  absl::Status s = LoadSolution(R"({"pipeline_mapping": {"mul": "zero", "neg": 1}})");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("the stage of node 'mul'"), std::string::npos) << s;
  s = LoadSolution(R"({"pipeline_mapping": {"mul": 0, "neg": 1}, "device_mapping": {"0": 1}})");
  EXPECT_NE(std::string(s.message()).find("device_mapping in solution file"), std::string::npos)
      << s;
  s = LoadSolution(R"({"pipeline_mapping": {"mul": 0, "neg": 1}, "device_maping": [0, 1]})");
  EXPECT_NE(std::string(s.message()).find("Unknown key 'device_maping'"), std::string::npos) << s;
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
