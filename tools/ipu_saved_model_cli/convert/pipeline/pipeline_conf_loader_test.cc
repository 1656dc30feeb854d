#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_conf_loader.h"

#include <filesystem>
#include <fstream>

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

class PipelineConfLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ipu::IpuSystem::Get().Reset();
    dir_ = ::testing::TempDir() + "/pipeline_conf_loader_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ + "/solution");
    absl::Status s = pipeline_testing::WriteDenseModel(dir_ + "/model", {16, 32, 8, 4});
    ASSERT_TRUE(s.ok()) << s;
    absl::StatusOr<FrozenModel> frozen = pipeline_testing::FreezeForIpu(dir_ + "/model", 4);
    ASSERT_TRUE(frozen.ok()) << frozen.status();
    model_ = *frozen;
  }
  void TearDown() override { ipu::IpuSystem::Get().Reset(); }

  void WriteSolution(const std::string& text) {
    std::ofstream(dir_ + "/solution/s.pipeconf") << text;
  }

  absl::Status Load(const std::string& cfg, GraphDef* graph, int num_ipus = 2) {
    PipelineContext context;
    context.num_ipus = num_ipus;
    context.batch_size = 4;
    context.working_dir = dir_;
    absl::StatusOr<std::unique_ptr<Converter>> c =
        MakePipelineConverter(nlohmann::json::parse(cfg), context);
    if (!c.ok()) return c.status();
    EXPECT_EQ((*c)->name(), "PipelineConfLoader");
    *graph = model_.graph;
    SignatureDef signature = model_.signature;
    return (*c)->Apply(graph, &signature);
  }

  std::string dir_;
  FrozenModel model_;
};

TEST_F(PipelineConfLoaderTest, AppliesAFileRelativeToTheWorkingDirectory) {
  // Only the compute nodes: the Consts and the output Identity follow.
  WriteSolution(R"({"pipeline_mapping": {"dense_0/MatMul": 0, "dense_0/BiasAdd": 0,
                    "dense_0/Relu": 0, "dense_1/MatMul": 0, "dense_1/BiasAdd": 1,
                    "dense_1/Relu": 1, "dense_2/MatMul": 1, "dense_2/BiasAdd": 1},
                    "device_mapping": [1, 0]})");
  GraphDef graph;
  absl::Status s = Load(R"({"converter": "load", "solution_path": "solution/s.pipeconf",
                            "profiling_enable": true})",
                        &graph);
  ASSERT_TRUE(s.ok()) << s;
  std::map<std::string, std::pair<int64_t, int64_t>> marks;
  for (const NodeDef& n : graph.node()) {
    if (n.attr().count(kPipelineStageAttr) == 0) continue;
    marks[n.name()] = {n.attr().at(kPipelineStageAttr).i(), n.attr().at(kShardAttr).i()};
  }
  using P = std::pair<int64_t, int64_t>;
  EXPECT_EQ(marks.at("dense_1/kernel"), P(0, 1));
  EXPECT_EQ(marks.at("dense_1/bias"), P(1, 0));
  EXPECT_EQ(marks.at("y"), P(1, 0));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/profiling/pipeline_loader-2-b4"));

  TF_ASSERT_OK(pipeline_testing::SaveModel(dir_ + "/converted", graph, model_.signature));
  const std::map<std::string, Tensor> inputs = {
      {"x", Tensor::FromVector<float>(std::vector<float>(64, 0.5f), TensorShape({4, 16}))}};
  auto converted = pipeline_testing::RunSavedModel(dir_ + "/converted", 2, inputs);
  ASSERT_TRUE(converted.ok()) << converted.status();
  auto original = pipeline_testing::RunSavedModel(dir_ + "/model", 0, inputs);
  ASSERT_TRUE(original.ok()) << original.status();
  EXPECT_EQ(converted->at("y").DebugString(), original->at("y").DebugString());
}

TEST_F(PipelineConfLoaderTest, ErrorsLeaveTheGraphUnchanged) {
  GraphDef graph;
  absl::Status s =
      Load(R"({"converter": "load", "solution_path": "solution/missing.pipeconf"})", &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(s.message()),
            "solution file " + dir_ + "/solution/missing.pipeconf is not a readable file");
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(graph, model_.graph));

  WriteSolution(R"({"pipeline_mapping": {"dense_0/MatMul": 0, "dense_0/BiasAdd": 0,
                    "dense_0/Relu": 0, "dense_1/MatMul": 0, "dense_1/BiasAdd": 1,
                    "dense_1/Relu": 1, "dense_2/MatMul": 1, "dense_2/BiasAdd": 1},
                    "device_mapping": [0, 3]})");
  s = Load(R"({"converter": "load", "solution_path": "solution/s.pipeconf"})", &graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            "pipeline stage 1 of solution file " + dir_ +
                "/solution/s.pipeconf runs on IPU 3, but num_ipus is 2; convert with "
                "--num_ipus 4 or map the stage to a lower IPU");
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(graph, model_.graph));

  WriteSolution(R"({"pipeline_mapping": {"dense_0/MatMul": 0}})");
  s = Load(R"({"converter": "load", "solution_path": "solution/s.pipeconf"})", &graph);
  EXPECT_EQ(std::string(s.message()),
            "The node `dense_0/BiasAdd` is not fully set with `pipeline_stage` in solution file " +
                dir_ +
                "/solution/s.pipeconf: every node but the signature inputs and Const, Identity "
                "and Pack needs a stage");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
