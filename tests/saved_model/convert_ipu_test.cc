// ipu_saved_model_cli's `convert ... ipu` end to end: SavedModels (the one
// TensorFlow wrote, and models written with SavedModelBuilder) converted,
// loaded back and run on the simulated IPU, with the results of the
// unconverted models on the host.
#include <cmath>
#include <set>
#include <sstream>

#include "Eigen/Core"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/ops/state_ops.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/saved_model/builder.h"
#include "tensorflow_ipu/saved_model/loader.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"
#include "tests/ipu/ipu_test_util.h"
#include "tools/ipu_saved_model_cli/convert/convert.h"

namespace tensorflow_ipu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using saved_model_cli::Convert;
using saved_model_cli::ConvertOptions;

std::vector<float> Floats(const Tensor& t) {
  std::vector<float> v;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    v.push_back(t.dtype() == DT_HALF ? static_cast<float>(t.data<half>()[i]) : t.data<float>()[i]);
  }
  return v;
}

// Deterministic values in [-1, 1).
Tensor Values(TensorShape shape, int seed) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = std::sin(0.7f * (i + 1) + 1.3f * seed);
  }
  return t;
}

class ConvertIpuTest : public testing::IpuTest {
 protected:
  void SetUp() override {
    IpuTest::SetUp();
    dir_ = saved_model_testing::FreshTestDir("convert_ipu");
  }

  // Converts `options.dir` into <dir_>/<name>; the printed lines go nowhere.
  std::string ConvertTo(ConvertOptions options, const std::string& name) {
    options.output_dir = dir_ + "/" + name;
    std::ostringstream out;
    absl::StatusOr<saved_model_cli::ConvertResult> r = Convert(options, out);
    EXPECT_TRUE(r.ok()) << r.status();
    return options.output_dir;
  }

  static SavedModelBundle Load(const std::string& dir) {
    SavedModelBundle bundle;
    absl::Status s = LoadSavedModel(SessionOptions(), RunOptions(), dir, {"serve"}, &bundle);
    EXPECT_TRUE(s.ok()) << s;
    return bundle;
  }

  // Runs the signature's tensor names directly, for the run's IPU profile.
  static std::vector<Tensor> RunWithProfile(const SavedModelBundle& bundle,
                                            const std::vector<std::pair<std::string, Tensor>>& feeds,
                                            const std::vector<std::string>& output_keys,
                                            IpuRunProfile* profile) {
    const SignatureDef& sig = bundle.meta_graph_def.signature_def().at("serving_default");
    std::vector<std::pair<std::string, Tensor>> named;
    for (const auto& [key, t] : feeds) named.emplace_back(sig.inputs().at(key).name(), t);
    std::vector<std::string> fetches;
    for (const std::string& key : output_keys) fetches.push_back(sig.outputs().at(key).name());
    RunMetadata metadata;
    std::vector<Tensor> out;
    absl::Status s = bundle.session->Run(RunOptions(), named, fetches, {}, &out, &metadata);
    EXPECT_TRUE(s.ok()) << s;
    *profile = metadata.ipu_profile;
    return out;
  }

  // An MLP 8-16-3 with reference variables (as TF1 exports them), written
  // with SavedModelBuilder: y = relu(x @ w1 + b1) @ w2 + b2, x [-1, 8].
  std::string WriteMlp() {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, ops::Placeholder::Shape({-1, 8}));
    std::vector<Operation> inits;
    auto variable = [&](const std::string& name, TensorShape shape, int seed) {
      auto v = ops::Variable(root.WithOpName(name), shape, DT_FLOAT);
      inits.push_back(ops::Assign(root.WithOpName(name + "/Assign"), v,
                                  Input::Initializer(Values(shape, seed)))
                          .operation);
      return ops::Identity(root.WithOpName(name + "/read"), v);
    };
    auto w1 = variable("layer1/w", TensorShape({8, 16}), 1);
    auto b1 = variable("layer1/b", TensorShape({16}), 2);
    auto w2 = variable("layer2/w", TensorShape({16, 3}), 3);
    auto b2 = variable("layer2/b", TensorShape({3}), 4);
    auto h = ops::Relu(root.WithOpName("layer1/Relu"),
                       ops::BiasAdd(root.WithOpName("layer1/BiasAdd"),
                                    ops::MatMul(root.WithOpName("layer1/MatMul"), x, w1), b1));
    auto y = ops::BiasAdd(root.WithOpName("layer2/BiasAdd"),
                          ops::MatMul(root.WithOpName("layer2/MatMul"), h, w2), b2);
    ops::Identity(root.WithOpName("y"), y);
    EXPECT_TRUE(root.ok()) << root.status();
    return Write(root, inits, {{"x", "x:0"}}, {{"y", "y:0"}}, "mlp");
  }

  std::string Write(const Scope& root, const std::vector<Operation>& inits,
                    const std::map<std::string, std::string>& inputs,
                    const std::map<std::string, std::string>& outputs, const std::string& name) {
    absl::StatusOr<GraphDef> graph = root.ToGraphDef();
    EXPECT_TRUE(graph.ok()) << graph.status();
    std::unique_ptr<Session> session = NewSession();
    TF_EXPECT_OK(session->Create(*graph));
    std::vector<std::string> targets;
    for (const Operation& op : inits) targets.push_back(op.node()->name());
    std::vector<Tensor> unused;
    if (!targets.empty()) {
      absl::Status s = session->Run({}, {}, targets, &unused);
      EXPECT_TRUE(s.ok()) << s;
    }
    absl::StatusOr<SignatureDef> sig = MakeSignatureDef(*graph, inputs, outputs);
    EXPECT_TRUE(sig.ok()) << sig.status();
    const std::string export_dir = dir_ + "/" + name;
    SavedModelBuilder builder(export_dir);
    absl::Status s = builder.AddMetaGraphAndVariables(session.get(), *graph, {"serve"},
                                                      {{"serving_default", *sig}});
    EXPECT_TRUE(s.ok()) << s;
    s = builder.Save();
    EXPECT_TRUE(s.ok()) << s;
    return export_dir;
  }

  std::string dir_;
};

TEST_F(ConvertIpuTest, HalfPlusTwoConvertedRunsOnTheIpu) {
  Configure(1);
  ConvertOptions options;
  options.dir = saved_model_testing::kHalfPlusTwo;
  // Every flag at its default but the batch: the IPU needs static shapes,
  // and batch_size (default 1) is the batch the converted model takes.
  options.batch_size = 3;
  SavedModelBundle bundle = Load(ConvertTo(options, "converted"));
  IpuRunProfile profile;
  std::vector<Tensor> out = RunWithProfile(
      bundle, {{"x", Tensor::FromVector<float>({1, 2, 5}, TensorShape({3, 1}))}}, {"y"}, &profile);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Floats(out[0]), ElementsAre(2.5f, 3.f, 4.5f));
  // It ran as one IPU cluster.
  ASSERT_EQ(profile.clusters.size(), 1u);
  EXPECT_GT(profile.clusters[0].cycles, 0u);
  EXPECT_EQ(profile.clusters[0].ipu_ordinal, 0);

  std::map<std::string, Tensor> outputs;
  TF_ASSERT_OK(RunSignature(bundle, "serving_default",
                            {{"x", Tensor::FromVector<float>({-2, 0, 4}, TensorShape({3, 1}))}},
                            &outputs));
  EXPECT_THAT(Floats(outputs["y"]), ElementsAre(1.f, 2.f, 4.f));
}

TEST_F(ConvertIpuTest, WithDefaultFlagsTheBatchIsOne) {
  Configure(1);
  ConvertOptions options;
  options.dir = saved_model_testing::kHalfPlusTwo;
  SavedModelBundle bundle = Load(ConvertTo(options, "converted"));
  std::map<std::string, Tensor> outputs;
  TF_ASSERT_OK(RunSignature(bundle, "serving_default",
                            {{"x", Tensor::FromVector<float>({1}, TensorShape({1, 1}))}}, &outputs));
  EXPECT_THAT(Floats(outputs["y"]), ElementsAre(2.5f));
  absl::Status s = RunSignature(
      bundle, "serving_default",
      {{"x", Tensor::FromVector<float>({1, 2, 5}, TensorShape({3, 1}))}}, &outputs);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("must have shape [1,1], got [3,1]"));
}

TEST_F(ConvertIpuTest, Fp16MlpGivesTheFloatResultsWithinHalfPrecision) {
  Configure(1);
  ConvertOptions options;
  options.dir = WriteMlp();
  options.batch_size = 4;
  const Tensor x = Values(TensorShape({4, 8}), 5);

  SavedModelBundle original = Load(options.dir);
  std::map<std::string, Tensor> expected;
  TF_ASSERT_OK(RunSignature(original, "serving_default", {{"x", x}}, &expected));

  SavedModelBundle fp32 = Load(ConvertTo(options, "fp32"));
  IpuRunProfile fp32_profile;
  std::vector<Tensor> fp32_out = RunWithProfile(fp32, {{"x", x}}, {"y"}, &fp32_profile);
  EXPECT_THAT(Floats(fp32_out[0]), ::testing::Pointwise(::testing::FloatNear(1e-5),
                                                        Floats(expected["y"])));

  options.precision_mode = "FP16";
  const std::string fp16_dir = ConvertTo(options, "fp16");
  SavedModelBundle fp16 = Load(fp16_dir);
  // The layers compute in half; the signature keeps float.
  for (const NodeDef& n : fp16.meta_graph_def.graph_def().node()) {
    if (n.name() == "layer1/MatMul" || n.name() == "layer2/BiasAdd") {
      EXPECT_EQ(n.attr().at("T").type(), DT_HALF) << n.name();
    }
    if (n.name() == "layer1/w") {
      EXPECT_EQ(n.attr().at("dtype").type(), DT_HALF);
    }
  }
  const SignatureDef& sig = fp16.meta_graph_def.signature_def().at("serving_default");
  EXPECT_EQ(sig.inputs().at("x").dtype(), DT_FLOAT);
  EXPECT_EQ(sig.outputs().at("y").dtype(), DT_FLOAT);
  IpuRunProfile fp16_profile;
  std::vector<Tensor> fp16_out = RunWithProfile(fp16, {{"x", x}}, {"y"}, &fp16_profile);
  ASSERT_EQ(fp16_out[0].dtype(), DT_FLOAT);
  const std::vector<float> want = Floats(expected["y"]);
  const std::vector<float> got = Floats(fp16_out[0]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    // Half has an 11-bit significand: sums of 16 products of values below
    // 1 keep about 3 decimal digits.
    EXPECT_NEAR(got[i], want[i], 1e-2 * (1 + std::abs(want[i]))) << i;
    EXPECT_NE(got[i], want[i]) << "computed in half, the result differs in the last bits " << i;
  }
  // On the IPU, as one cluster (what a half tensor costs in memory is
  // poplar_sim's EngineMemoryTest.HalfTensorsTakeHalfTheBytesOfFloatOnes).
  ASSERT_EQ(fp16_profile.clusters.size(), 1u);
  ASSERT_EQ(fp32_profile.clusters.size(), 1u);
}

TEST_F(ConvertIpuTest, Int64ModelRunsOnTheIpuOnlyConvertedAndTakesItsInt64Inputs) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  auto ids = ops::Placeholder(root.WithOpName("ids"), DT_INT64, ops::Placeholder::Shape({3}));
  auto scaled = ops::Mul(root.WithOpName("scaled"), ids,
                         ops::Const(root.WithOpName("three"), int64_t{3}));
  auto shifted = ops::AddV2(root.WithOpName("shifted"), scaled,
                            ops::Const(root.WithOpName("offset"), int64_t{1000}));
  ops::Identity(root.WithOpName("out"), shifted);
  ASSERT_TRUE(root.ok()) << root.status();
  ConvertOptions options;
  options.dir = Write(root, {}, {{"ids", "ids:0"}}, {{"out", "out:0"}}, "int64_model");
  options.batch_size = 3;
  const Tensor feed = Tensor::Vector<int64_t>({1, -2, 7});

  // Without the conversion the IPU refuses the int64 values.
  SavedModelBundle plain = Load(ConvertTo(options, "plain"));
  std::map<std::string, Tensor> outputs;
  absl::Status s = RunSignature(plain, "serving_default", {{"ids", feed}}, &outputs);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "signature 'serving_default': popops MULTIPLY is not supported for long long operands");

  options.int64_to_int32_conversion = true;
  SavedModelBundle converted = Load(ConvertTo(options, "converted"));
  const SignatureDef& sig = converted.meta_graph_def.signature_def().at("serving_default");
  EXPECT_EQ(sig.inputs().at("ids").dtype(), DT_INT64);
  EXPECT_EQ(sig.outputs().at("out").dtype(), DT_INT64);
  IpuRunProfile profile;
  std::vector<Tensor> out = RunWithProfile(converted, {{"ids", feed}}, {"out"}, &profile);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DT_INT64);
  EXPECT_EQ(out[0].DebugString(), "[1003  994 1021]");
  ASSERT_EQ(profile.clusters.size(), 1u);

  // Merged into one cluster, the host casts stay outside it.
  options.merge_subgraphs = true;
  SavedModelBundle merged = Load(ConvertTo(options, "merged"));
  out = RunWithProfile(merged, {{"ids", feed}}, {"out"}, &profile);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].DebugString(), "[1003  994 1021]");
  EXPECT_EQ(profile.clusters.size(), 1u);
}

TEST_F(ConvertIpuTest, ManualShardingOverTwoIpusPutsEachShardOnItsIpu) {
  Configure(2);
  ConvertOptions options;
  options.dir = WriteMlp();
  options.batch_size = 4;
  options.num_ipus = 2;
  options.manual_sharding = {{"^layer1/"}, {"^layer2/", "^y$"}};
  const Tensor x = Values(TensorShape({4, 8}), 6);
  SavedModelBundle original = Load(options.dir);
  std::map<std::string, Tensor> expected;
  TF_ASSERT_OK(RunSignature(original, "serving_default", {{"x", x}}, &expected));

  SavedModelBundle sharded = Load(ConvertTo(options, "sharded"));
  for (const NodeDef& n : sharded.meta_graph_def.graph_def().node()) {
    if (n.op() == "Placeholder") continue;
    const int64_t want = n.name().rfind("layer2/", 0) == 0 || n.name() == "y" ? 1 : 0;
    EXPECT_EQ(n.attr().at(kShardAttr).i(), want) << n.name();
  }
  IpuRunProfile profile;
  std::vector<Tensor> out = RunWithProfile(sharded, {{"x", x}}, {"y"}, &profile);
  EXPECT_THAT(Floats(out[0]),
              ::testing::Pointwise(::testing::FloatNear(1e-5), Floats(expected["y"])));
  ASSERT_EQ(profile.clusters.size(), 1u);
  EXPECT_EQ(profile.clusters[0].num_ipus, 2);
  EXPECT_EQ(profile.clusters[0].replicas, 1);
  // The hidden layer crossed from IPU 0 to IPU 1: 4 x 16 floats at least.
  EXPECT_GE(profile.clusters[0].inter_ipu_bytes, 4u * 16u * 4u);
}

TEST_F(ConvertIpuTest, MergedSubgraphsRunAsOneCompiledCluster) {
  Configure(1);
  ConvertOptions options;
  options.dir = WriteMlp();
  options.batch_size = 4;
  options.merge_subgraphs = true;
  const Tensor x = Values(TensorShape({4, 8}), 7);
  SavedModelBundle original = Load(options.dir);
  std::map<std::string, Tensor> expected;
  TF_ASSERT_OK(RunSignature(original, "serving_default", {{"x", x}}, &expected));

  SavedModelBundle merged = Load(ConvertTo(options, "merged"));
  std::set<std::string> clusters;
  for (const NodeDef& n : merged.meta_graph_def.graph_def().node()) {
    if (n.op() == "Placeholder") continue;
    clusters.insert(n.attr().at(kCompileClusterAttr).s());
  }
  EXPECT_THAT(clusters, ElementsAre("merged_ipu_subgraphs"));
  IpuRunProfile profile;
  std::vector<Tensor> out = RunWithProfile(merged, {{"x", x}}, {"y"}, &profile);
  EXPECT_THAT(Floats(out[0]),
              ::testing::Pointwise(::testing::FloatNear(1e-5), Floats(expected["y"])));
  EXPECT_EQ(profile.clusters.size(), 1u);
}

TEST_F(ConvertIpuTest, RemovingAnExcludedCpuHeadLeavesAModelFedAtTheCut) {
  Configure(1);
  ConvertOptions options;
  options.dir = WriteMlp();
  options.batch_size = 4;
  options.excluded_nodes = {"^layer1/"};
  options.remove_excluded_nodes = true;
  const Tensor x = Values(TensorShape({4, 8}), 8);
  SavedModelBundle original = Load(options.dir);
  std::vector<Tensor> hidden;
  TF_ASSERT_OK(original.session->Run({{"x:0", x}}, {"layer1/Relu:0", "y:0"}, {}, &hidden));

  SavedModelBundle head_removed = Load(ConvertTo(options, "cut"));
  const SignatureDef& sig = head_removed.meta_graph_def.signature_def().at("serving_default");
  ASSERT_EQ(sig.inputs().size(), 1u);
  EXPECT_EQ(sig.inputs().at("layer1/Relu").name(), "layer1/Relu:0");
  IpuRunProfile profile;
  std::vector<Tensor> out = RunWithProfile(head_removed, {{"layer1/Relu", hidden[0]}}, {"y"}, &profile);
  EXPECT_THAT(Floats(out[0]), ::testing::Pointwise(::testing::FloatNear(1e-5), Floats(hidden[1])));
  EXPECT_EQ(profile.clusters.size(), 1u);
}

}  // namespace
}  // namespace tensorflow_ipu
