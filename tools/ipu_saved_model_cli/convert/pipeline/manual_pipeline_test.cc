#include "tools/ipu_saved_model_cli/convert/pipeline/manual_pipeline.h"

#include <filesystem>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_converter.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/testing/converted_model.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/testing/dense_model.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using pipeline_testing::FrozenModel;

class ManualPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ipu::IpuSystem::Get().Reset();
    dir_ = ::testing::TempDir() + "/manual_pipeline_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    absl::Status s = pipeline_testing::WriteDenseModel(dir_ + "/model", {16, 32, 8, 4});
    ASSERT_TRUE(s.ok()) << s;
    absl::StatusOr<FrozenModel> frozen = pipeline_testing::FreezeForIpu(dir_ + "/model", 4);
    ASSERT_TRUE(frozen.ok()) << frozen.status();
    model_ = *frozen;
  }
  void TearDown() override { ipu::IpuSystem::Get().Reset(); }

  // Applies pipeline_cfg `text` to model_ with 2 IPUs, working in dir_.
  absl::Status Convert(const std::string& text, GraphDef* graph) {
    PipelineContext context;
    context.num_ipus = 2;
    context.batch_size = 4;
    context.working_dir = dir_;
    absl::StatusOr<std::unique_ptr<Converter>> c =
        MakePipelineConverter(nlohmann::json::parse(text), context);
    if (!c.ok()) return c.status();
    EXPECT_EQ((*c)->name(), "ManualPipeline");
    *graph = model_.graph;
    SignatureDef signature = model_.signature;
    return (*c)->Apply(graph, &signature);
  }

  static std::map<std::string, std::pair<int64_t, int64_t>> Marks(const GraphDef& graph) {
    std::map<std::string, std::pair<int64_t, int64_t>> marks;
    for (const NodeDef& n : graph.node()) {
      auto stage = n.attr().find(kPipelineStageAttr);
      auto shard = n.attr().find(kShardAttr);
      if (stage != n.attr().end() && shard != n.attr().end()) {
        marks[n.name()] = {stage->second.i(), shard->second.i()};
      }
    }
    return marks;
  }

  std::string dir_;
  FrozenModel model_;
};

using P = std::pair<int64_t, int64_t>;

TEST_F(ManualPipelineTest, StagesByRegexRunOnTheirIpusWithTheSameNumbers) {
  GraphDef graph;
  absl::Status s = Convert(R"({"converter": "manual",
                               "manual_pipeline_config": [["^dense_0/"], ["^dense_[12]/"]],
                               "device_info": [1, 0]})",
                           &graph);
  ASSERT_TRUE(s.ok()) << s;
  const auto marks = Marks(graph);
  EXPECT_EQ(marks.at("dense_0/MatMul"), P(0, 1));
  EXPECT_EQ(marks.at("dense_0/kernel"), P(0, 1));  // a Const follows its consumer
  EXPECT_EQ(marks.at("dense_0/Relu"), P(0, 1));
  EXPECT_EQ(marks.at("dense_1/MatMul"), P(1, 0));
  EXPECT_EQ(marks.at("dense_2/BiasAdd"), P(1, 0));
  EXPECT_EQ(marks.at("y"), P(1, 0));  // the output Identity: its producer's
  EXPECT_EQ(marks.count("x"), 0u);    // the input stays on the host
  EXPECT_EQ(marks.size(), static_cast<size_t>(graph.node_size() - 1));

  // The solution file, and the profile of the pipelined run.
  absl::StatusOr<ServingGraph> serving = ServingGraph::Make(graph, model_.signature);
  ASSERT_TRUE(serving.ok()) << serving.status();
  absl::StatusOr<PipelineSolution> written =
      ReadSolutionFile(dir_ + "/solution/manual.pipeconfig", *serving);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(written->device_mapping, (std::vector<int>{1, 0}));
  EXPECT_EQ(written->pipeline_mapping.at("dense_1/Relu"), 1);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/profiling/manual_pipeline-2-b4"));

  // Converted and saved, loaded and run on 2 simulated IPUs: the numbers
  // of the unconverted model on the host.
  TF_ASSERT_OK(pipeline_testing::SaveModel(dir_ + "/converted", graph, model_.signature));
  std::vector<float> x(64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5) * 0.5f - 1.f;
  const std::map<std::string, Tensor> inputs = {
      {"x", Tensor::FromVector<float>(x, TensorShape({4, 16}))}};
  auto converted = pipeline_testing::RunSavedModel(dir_ + "/converted", 2, inputs);
  ASSERT_TRUE(converted.ok()) << converted.status();
  auto original = pipeline_testing::RunSavedModel(dir_ + "/model", 0, inputs);
  ASSERT_TRUE(original.ok()) << original.status();
  EXPECT_EQ(converted->at("y").DebugString(), original->at("y").DebugString());
}

TEST_F(ManualPipelineTest, RegexesMatchAtTheStartAndTheLastStageWins) {
  GraphDef graph;
  // "dense" matches every layer for stage 0; stage 1's regexes claim
  // dense_1 and dense_2 again, and win. "ense_2" would not match: re.match
  // is anchored at the start.
  absl::Status s = Convert(R"({"converter": "manual", "profiling_enable": false,
                               "manual_pipeline_config": [["dense"], ["dense_1", "ense_0", "dense_2/"]],
                               "device_info": [0, 1]})",
                           &graph);
  ASSERT_TRUE(s.ok()) << s;
  const auto marks = Marks(graph);
  EXPECT_EQ(marks.at("dense_0/MatMul").first, 0);
  EXPECT_EQ(marks.at("dense_1/MatMul").first, 1);
  EXPECT_EQ(marks.at("dense_2/MatMul").first, 1);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/profiling"));
}

TEST_F(ManualPipelineTest, UnmatchedNodesAreNamed) {
  GraphDef graph;
  absl::Status s = Convert(R"({"converter": "manual",
                               "manual_pipeline_config": [["^dense_0/"], ["ense_[12]"]],
                               "device_info": [0, 1]})",
                           &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            "The node `dense_1/MatMul` is not fully set with `pipeline_stage`: no regular "
            "expression of manual_pipeline_config matches it (they match at the start of the "
            "name, like Python's re.match)");
  // Nothing was written or changed.
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/solution"));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(graph, model_.graph));
}

TEST_F(ManualPipelineTest, BadRegexesDevicesAndOrders) {
  GraphDef graph;
  absl::Status s = Convert(R"({"converter": "manual", "manual_pipeline_config": [["dense_(0"]],
                               "device_info": [0]})",
                           &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      std::string(s.message())
          .rfind("pipeline stage 0 of manual_pipeline_config: \"dense_(0\" is not a valid "
                 "regular expression (",
                 0),
      0u)
      << s;
  s = Convert(R"({"converter": "manual", "manual_pipeline_config": [["^dense_0/"], ["^dense_[12]"]],
                  "device_info": [0, 2]})",
              &graph);
  EXPECT_EQ(std::string(s.message()),
            "pipeline stage 1 of manual_pipeline_config runs on IPU 2, but num_ipus is 2; "
            "convert with --num_ipus 3 or map the stage to a lower IPU");
  s = Convert(
      R"({"converter": "manual", "manual_pipeline_config": [["^dense_[12]/"], ["^dense_0/"]],
                  "device_info": [0, 1]})",
      &graph);
  EXPECT_EQ(std::string(s.message()),
            "The pipeline stages of the pipeline solution are not in topology order: node "
            "'dense_1/MatMul' (stage 0) reads 'dense_0/Relu' (stage 1); a stage may read only "
            "the signature inputs and nodes of its own or earlier stages");
  s = Convert(R"({"converter": "manual", "manual_pipeline_config": [["^dense"], ["^nothing"]],
                  "device_info": [0, 1]})",
              &graph);
  EXPECT_EQ(std::string(s.message()),
            "pipeline stage 1 of manual_pipeline_config has no node: its regular expressions "
            "match none, or only nodes that a later stage's match too");
  s = Convert(R"({"converter": "manual", "manual_pipeline_config": [["^dense_0"], ["^dense"]],
                  "device_info": [0, 1]})",
              &graph);
  EXPECT_EQ(std::string(s.message()),
            "pipeline stage 0 of manual_pipeline_config has no node: its regular expressions "
            "match none, or only nodes that a later stage's match too");
}

TEST_F(ManualPipelineTest, FactoryRefusesABadContext) {
  PipelineContext context;
  context.num_ipus = 0;
  absl::Status s =
      MakePipelineConverter(nlohmann::json::parse(R"({"converter": "auto"})"), context).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            "num_ipus should be an integer, and greater than 0 (it is 0).");
  context.num_ipus = 1;
  context.batch_size = 0;
  s = MakePipelineConverter(nlohmann::json::parse(R"({"converter": "auto"})"), context).status();
  EXPECT_EQ(std::string(s.message()),
            "batch_size must be at least 1 to profile a pipeline (it is 0)");
  context.batch_size = 1;
  context.batch_per_step = -1;
  s = MakePipelineConverter(nlohmann::json::parse(R"({"converter": "auto"})"), context).status();
  EXPECT_EQ(std::string(s.message()), "batch_per_step must not be negative (it is -1)");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
