#include "tools/ipu_saved_model_cli/convert/pipeline/simulated_run.h"

#include <filesystem>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/saved_model/freeze.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/node_costs.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/testing/dense_model.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

class SimulatedRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ipu::IpuSystem::Get().Reset();
    dir_ = ::testing::TempDir() + "/simulated_run_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    absl::Status s = pipeline_testing::WriteDenseModel(dir_ + "/model", {16, 32, 8, 4});
    ASSERT_TRUE(s.ok()) << s;
    FreezeOptions options;
    options.batch_size = 4;
    s = LoadSavedModelForIpu(SessionOptions(), RunOptions(), dir_ + "/model", {"serve"}, options,
                             &frozen_);
    ASSERT_TRUE(s.ok()) << s;
    graph_ = frozen_.meta_graph_def.graph_def();
    signature_ = frozen_.meta_graph_def.signature_def().at("serving_default");
  }
  void TearDown() override { ipu::IpuSystem::Get().Reset(); }

  std::string dir_;
  SavedModelBundle frozen_;
  GraphDef graph_;
  SignatureDef signature_;
};

TEST_F(SimulatedRunTest, ProfilesEachIpusWorkByNode) {
  // dense_0 on IPU 0, the rest on IPU 1.
  for (NodeDef& n : *graph_.mutable_node()) {
    if (n.op() == "Placeholder") continue;
    const int64_t ipu = n.name().rfind("dense_0/", 0) == 0 ? 0 : 1;
    (*n.mutable_attr())[kShardAttr] = MakeAttrValue(ipu);
  }
  absl::StatusOr<std::map<std::string, Tensor>> inputs = ZeroInputs(graph_, signature_, 4);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->at("x").shape().dim_size(0), 4);
  std::vector<float> x(64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.f;
  (*inputs)["x"] = Tensor::FromVector<float>(x, TensorShape({4, 16}));

  SimulatedRunOptions options;
  options.num_ipus = 2;
  options.batch_size = 4;
  options.report_dir = dir_ + "/profiling";
  absl::StatusOr<SimulatedRun> run = RunOnSimulator(graph_, signature_, options, *inputs);
  ASSERT_TRUE(run.ok()) << run.status();
  // The process's IPU system is as it was: unconfigured.
  EXPECT_FALSE(ipu::IpuSystem::Get().configuration().has_value());

  // The same numbers as the unconverted model on the host.
  SavedModelBundle original;
  absl::Status s =
      LoadSavedModel(SessionOptions(), RunOptions(), dir_ + "/model", {"serve"}, &original);
  ASSERT_TRUE(s.ok()) << s;
  std::map<std::string, Tensor> expected;
  s = RunSignature(original, "serving_default", *inputs, &expected);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(run->outputs.at("y").DebugString(), expected.at("y").DebugString());

  absl::StatusOr<ServingGraph> g = ServingGraph::Make(graph_, signature_);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<ProfileSummary> p = SummarizeProfiles(run->profiles, *g);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->ipu_execute_cycles.size(), 2u);
  // Every compute node ran and has cycles; each IPU's compute is exactly
  // the sum of its nodes'.
  int64_t ipu0 = 0;
  int64_t ipu1 = 0;
  for (const std::string& n : g->compute_order()) {
    ASSERT_GT(p->node_cycles.count(n), 0u) << n;
    EXPECT_GT(p->node_cycles.at(n), 0) << n;
    (n.rfind("dense_0/", 0) == 0 ? ipu0 : ipu1) += p->node_cycles.at(n);
  }
  EXPECT_EQ(p->ipu_execute_cycles[0], ipu0);
  EXPECT_EQ(p->ipu_execute_cycles[1], ipu1);
  EXPECT_GT(p->ipu_memory_bytes[0], 0);
  EXPECT_GT(p->ipu_memory_bytes[1], 0);
  EXPECT_GT(p->ipu_capacity_bytes, 100'000'000);
}

TEST_F(SimulatedRunTest, PutsBackThePreviousConfiguration) {
  ipu::config::IPUConfig config;
  config.auto_select_ipus = 1;
  TF_ASSERT_OK(config.configure_ipu_system());
  SimulatedRunOptions options;
  options.num_ipus = 2;
  options.batch_size = 4;
  options.report_dir = dir_ + "/profiling";
  absl::StatusOr<SimulatedRun> run = RunOnSimulator(graph_, signature_, options);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_TRUE(ipu::IpuSystem::Get().configuration().has_value());
  EXPECT_EQ(ipu::IpuSystem::Get().configuration()->auto_select_ipus.counts(), std::vector<int>{1});
}

TEST_F(SimulatedRunTest, NothingOnAnIpuIsAnError) {
  for (NodeDef& n : *graph_.mutable_node()) n.clear_device();
  SimulatedRunOptions options;
  options.report_dir = dir_ + "/profiling";
  absl::Status s = RunOnSimulator(graph_, signature_, options).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(s.message()).find("wrote no profile"), std::string::npos) << s;
}

TEST_F(SimulatedRunTest, ZeroInputsNameABadInput) {
  SignatureDef bad = signature_;
  (*bad.mutable_inputs())["z"].set_name("dense_0/MatMul:0");
  absl::Status s = ZeroInputs(graph_, bad, 4).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "signature input 'z' (dense_0/MatMul:0) is not a Placeholder of the graph");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
