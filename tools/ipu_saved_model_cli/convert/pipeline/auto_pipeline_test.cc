#include "tools/ipu_saved_model_cli/convert/pipeline/auto_pipeline.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/simulated_run.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/testing/converted_model.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/testing/dense_model.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using pipeline_testing::FrozenModel;

// 19 dense layers of different widths: the deep model of
// docs/saved_model_cli.md.
const std::vector<int> kDeepModel = {64,  128, 64, 256, 512, 256, 64,  32, 64, 128,
                                     256, 128, 32, 16,  32,  64,  512, 64, 16, 8};
constexpr int kBatch = 4;

class AutoPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ipu::IpuSystem::Get().Reset();
    dir_ = ::testing::TempDir() + "/auto_pipeline_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { ipu::IpuSystem::Get().Reset(); }

  FrozenModel Model(const std::vector<int>& widths) {
    absl::Status s = pipeline_testing::WriteDenseModel(dir_ + "/model", widths);
    EXPECT_TRUE(s.ok()) << s;
    absl::StatusOr<FrozenModel> frozen = pipeline_testing::FreezeForIpu(dir_ + "/model", kBatch);
    EXPECT_TRUE(frozen.ok()) << frozen.status();
    return frozen.ok() ? *frozen : FrozenModel();
  }

  PipelineContext Context() const {
    PipelineContext context;
    context.batch_size = kBatch;
    context.working_dir = dir_;
    return context;
  }

  // Each stage's Execute cycles when the converted graph runs on `ipus`
  // simulated IPUs.
  std::vector<int64_t> MeasuredStageCycles(const GraphDef& graph, const SignatureDef& signature,
                                           int ipus, const std::string& name) {
    SimulatedRunOptions options;
    options.num_ipus = ipus;
    options.batch_size = kBatch;
    options.report_dir = dir_ + "/measure-" + name;
    absl::StatusOr<SimulatedRun> run = RunOnSimulator(graph, signature, options);
    EXPECT_TRUE(run.ok()) << run.status();
    if (!run.ok()) return {};
    absl::StatusOr<ServingGraph> serving = ServingGraph::Make(graph, signature);
    EXPECT_TRUE(serving.ok()) << serving.status();
    absl::StatusOr<ProfileSummary> p = SummarizeProfiles(run->profiles, *serving);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? p->ipu_execute_cycles : std::vector<int64_t>{};
  }

  // The outputs of serving_default for a fixed x, the model saved to `name`
  // and loaded on `ipus` simulated IPUs (0: the host).
  std::string Outputs(const GraphDef& graph, const SignatureDef& signature, const std::string& name,
                      int ipus, int width = kDeepModel[0]) {
    const std::string path = dir_ + "/" + name;
    absl::Status s = pipeline_testing::SaveModel(path, graph, signature);
    EXPECT_TRUE(s.ok()) << s;
    std::vector<float> x(kBatch * width);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 9) * 0.25f - 1.f;
    auto out = pipeline_testing::RunSavedModel(
        path, ipus, {{"x", Tensor::FromVector<float>(x, TensorShape({kBatch, width}))}});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? out->at("y").DebugString() : "";
  }

  std::string dir_;
};

// The exact split's slowest stage is faster than the greedy split's, as
// measured by running both converted models on 4 simulated IPUs; both
// compute the unconverted model's numbers.
TEST_F(AutoPipelineTest, ExactSplitBeatsGreedyOnADeepModel) {
  const FrozenModel model = Model(kDeepModel);
  std::map<SplitMethod, std::vector<int64_t>> measured;
  std::map<SplitMethod, GraphDef> converted;
  for (SplitMethod method : {SplitMethod::kGreedy, SplitMethod::kExact}) {
    AutoPipelineConfig config;
    config.min_ipu_quantity = 4;
    config.max_ipu_quantity = 4;
    config.split = method;
    AutoPipeline converter(config, Context());
    GraphDef graph = model.graph;
    SignatureDef signature = model.signature;
    absl::Status s = converter.Apply(&graph, &signature);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(converter.num_ipus(), 4);
    ASSERT_EQ(converter.tries().size(), 1u);
    const AutoPipelineTry& t = converter.tries()[0];
    EXPECT_TRUE(t.fits);
    EXPECT_EQ(t.stage_sizes.size(), 4u);
    const std::string name = method == SplitMethod::kExact ? "exact" : "greedy";
    EXPECT_EQ(converter.solution_path(),
              dir_ + "/solution/" +
                  (method == SplitMethod::kExact ? "exact_split_solutions.pipeconf"
                                                 : "greedy_search_solutions.pipeconf"));
    EXPECT_TRUE(std::filesystem::exists(converter.solution_path()));
    measured[method] = MeasuredStageCycles(graph, signature, 4, name);
    ASSERT_EQ(measured[method].size(), 4u);
    // What the converter measured for the split it kept is what a run of
    // the converted model measures.
    EXPECT_EQ(measured[method], t.measured_stage_cycles);
    std::cout << name << ": nodes per stage " << absl::StrJoin(t.stage_sizes, ", ")
              << "; cycles per stage " << absl::StrJoin(measured[method], ", ")
              << "; slowest per round " << absl::StrJoin(t.measured_slowest_per_round, ", ")
              << "\n";
    converted[method] = graph;
  }
  const int64_t greedy = *std::max_element(measured[SplitMethod::kGreedy].begin(),
                                           measured[SplitMethod::kGreedy].end());
  const int64_t exact =
      *std::max_element(measured[SplitMethod::kExact].begin(), measured[SplitMethod::kExact].end());
  EXPECT_LT(exact, greedy);

  const std::string original = Outputs(model.graph, model.signature, "original", 1);
  EXPECT_EQ(Outputs(converted[SplitMethod::kExact], model.signature, "exact", 4), original);
  EXPECT_EQ(Outputs(converted[SplitMethod::kGreedy], model.signature, "greedy", 4), original);
}

// With the defaults, n = 2 is tried first and fits.
TEST_F(AutoPipelineTest, DefaultsPickTwoStagesForASmallModel) {
  const FrozenModel model = Model({16, 32, 8, 4});
  AutoPipelineConfig config;
  config.priority = "memory";
  AutoPipeline converter(config, Context());
  GraphDef graph = model.graph;
  SignatureDef signature = model.signature;
  absl::Status s = converter.Apply(&graph, &signature);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(converter.num_ipus(), 2);
  ASSERT_EQ(converter.tries().size(), 1u);
  EXPECT_EQ(converter.tries()[0].num_stages, 2);
  EXPECT_GT(converter.tries()[0].first_try_free_bytes, kVertexAllowanceBytes);
  EXPECT_TRUE(
      std::filesystem::exists(dir_ + "/profiling/auto_pipeline_solver-2-b4-memory/first-try"));
  absl::StatusOr<ServingGraph> serving = ServingGraph::Make(graph, signature);
  ASSERT_TRUE(serving.ok()) << serving.status();
  absl::StatusOr<PipelineSolution> solution = ReadSolutionFile(converter.solution_path(), *serving);
  ASSERT_TRUE(solution.ok()) << solution.status();
  EXPECT_EQ(solution->device_mapping, (std::vector<int>{0, 1}));
  EXPECT_EQ(Outputs(graph, signature, "converted", 2, 16),
            Outputs(model.graph, model.signature, "original", 1, 16));
}

TEST_F(AutoPipelineTest, TooFewNodesForTheStages) {
  const FrozenModel model = Model({4, 4});  // MatMul and BiasAdd
  AutoPipelineConfig config;
  config.min_ipu_quantity = 4;
  config.max_ipu_quantity = 8;
  AutoPipeline converter(config, Context());
  GraphDef graph = model.graph;
  SignatureDef signature = model.signature;
  absl::Status s = converter.Apply(&graph, &signature);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(),
            "(IPU-END) Can not find the optimal solution. Tried: 4 stages: the graph has only 2 "
            "nodes to split (lower min_ipu_quantity). A model that does not fit needs more IPUs "
            "(max_ipu_quantity) or a smaller batch_size.");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
