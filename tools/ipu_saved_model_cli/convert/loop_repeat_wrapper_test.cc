#include "tools/ipu_saved_model_cli/convert/loop_repeat_wrapper.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"
#include "tools/ipu_saved_model_cli/convert/testing/converter_test_util.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// x (host) -> neg (IPU) -> y (IPU), and a host cast of y that the signature
// also returns: the application streams x in and y out.
constexpr char kGraph[] = R"pb(
  node {
    name: "x" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } }
  }
  node { name: "neg" op: "Neg" input: "x" device: "/device:IPU:0"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Mul" input: "neg" input: "neg" device: "/device:IPU:0"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y/ToInt32" op: "Cast" input: "y"
         attr { key: "SrcT" value { type: DT_FLOAT } }
         attr { key: "DstT" value { type: DT_INT32 } } }
)pb";

SignatureDef Sig() {
  return testing::Signature({{"x", {"x:0", DT_FLOAT, {-1, 2}}}},
                            {{"y", {"y:0", DT_FLOAT, {-1, 2}}},
                             {"yi", {"y/ToInt32:0", DT_INT32, {-1, 2}}}});
}

ConvertOptions Options(const std::string& cachedir) {
  ConvertOptions o;
  o.int64_to_int32_conversion = true;
  o.batch_size = 4;
  o.batch_per_step = 3;
  o.embedded_runtime_save_config = {{"embedded_runtime_exec_cachedir", cachedir},
                                    {"runtime_api_timeout_us", 2000}};
  return o;
}

std::string CacheDir(const std::string& name) {
  return std::string(::testing::TempDir()) + "/" + name;
}

TEST(LoopRepeatWrapperTest, WithoutAConfigItLeavesTheGraphAlone) {
  absl::StatusOr<std::unique_ptr<LoopRepeatWrapper>> c = LoopRepeatWrapper::Create(ConvertOptions());
  ASSERT_TRUE(c.ok()) << c.status();
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  TF_ASSERT_OK((*c)->Apply(&g, &sig));
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
}

TEST(LoopRepeatWrapperTest, TheIpuPartBecomesOneApplicationCall) {
  const std::string dir = CacheDir("wrapped");
  absl::StatusOr<std::unique_ptr<LoopRepeatWrapper>> c = LoopRepeatWrapper::Create(Options(dir));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->executable_path(), dir + "/application.poplar_exec");
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  TF_ASSERT_OK((*c)->Apply(&g, &sig));
  EXPECT_THAT(testing::NodeNames(g),
              ElementsAre("x", "y/ToInt32", "ApplicationRuntime", "ApplicationCall", "y"));
  const NodeDef* call = testing::FindNode(g, "ApplicationCall");
  EXPECT_THAT(call->input(), ElementsAre("x", "ApplicationRuntime"));
  EXPECT_THAT(testing::FindNode(g, "y/ToInt32")->input(), ElementsAre("ApplicationCall"));
  EXPECT_EQ(testing::FindNode(g, "y")->op(), "Identity");
  EXPECT_THAT(testing::FindNode(g, "y")->input(), ElementsAre("ApplicationCall"));
  const NodeDef* runtime = testing::FindNode(g, "ApplicationRuntime");
  EXPECT_EQ(runtime->attr().at("filename").s(), dir + "/application.poplar_exec");
  EXPECT_EQ(runtime->attr().at("timeout_us").i(), 2000);
  EXPECT_EQ(runtime->attr().at("engine_name").s(), call->attr().at("engine_name").s());
  EXPECT_THAT(runtime->attr().at("engine_name").s(), ::testing::StartsWith("application-"));
  EXPECT_TRUE(testing::SameProto(sig, Sig()));  // the signature is unchanged

  absl::StatusOr<ApplicationExecutableProto> exe =
      ReadApplicationExecutable(dir + "/application.poplar_exec");
  ASSERT_TRUE(exe.ok()) << exe.status();
  const EmbeddedRuntimeConfig& config = exe->embedded_runtime_config();
  EXPECT_EQ(config.iterations(), 3);
  ASSERT_EQ(config.signature().streamed_inputs_size(), 1);
  EXPECT_EQ(config.signature().streamed_inputs(0).name(), "x:0");
  const TensorShapeProto& in = config.signature().streamed_inputs(0).shape();
  ASSERT_EQ(in.dim_size(), 2);
  EXPECT_EQ(in.dim(0).size(), 4);  // --batch_size fixed the unknown batch
  EXPECT_EQ(in.dim(1).size(), 2);
  ASSERT_EQ(config.signature().streamed_outputs_size(), 1);
  EXPECT_EQ(config.signature().streamed_outputs(0).name(), "y:0");
}

TEST(LoopRepeatWrapperTest, ConvertingTwiceGivesTheSameGraph) {
  GraphDef first = testing::Graph(kGraph), second = testing::Graph(kGraph);
  SignatureDef s1 = Sig(), s2 = Sig();
  auto c = LoopRepeatWrapper::Create(Options(CacheDir("twice")));
  ASSERT_TRUE(c.ok()) << c.status();
  TF_ASSERT_OK((*c)->Apply(&first, &s1));
  TF_ASSERT_OK((*c)->Apply(&second, &s2));
  EXPECT_TRUE(testing::SameProto(first, second));
}

TEST(LoopRepeatWrapperTest, TheOriginalsChecksInItsWords) {
  ConvertOptions o = Options("c");
  o.int64_to_int32_conversion = false;
  EXPECT_EQ(LoopRepeatWrapper::Create(o).status().message(),
            "The `int64_to_int32_conversion` must be True with `int64_to_int32_conversion=True` "
            "during the embedded application runtime compilation.");
  o = Options("c");
  o.merge_subgraphs = true;
  EXPECT_EQ(LoopRepeatWrapper::Create(o).status().message(),
            "The `merge_subgraphs` must be false with `merge_subgraphs=False` during the "
            "embedded application runtime compilation.");
  o = Options("c");
  o.embedded_runtime_save_config = nlohmann::json::array({1});
  EXPECT_THAT(std::string(LoopRepeatWrapper::Create(o).status().message()),
              HasSubstr("Invalid type (list) for `embedded_runtime_save_config`."));
  o = Options("c");
  o.embedded_runtime_save_config.erase("embedded_runtime_exec_cachedir");
  EXPECT_THAT(std::string(LoopRepeatWrapper::Create(o).status().message()),
              HasSubstr("Key 'embedded_runtime_exec_cachedir' missing"));
}

TEST(LoopRepeatWrapperTest, WhatCannotBeOneApplicationIsRefusedNamingTheNode) {
  // A host node between IPU nodes.
  GraphDef g = testing::Graph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: -1 } } } } }
    node { name: "a" op: "Neg" input: "x" device: "/device:IPU:0"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "host" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "b" op: "Neg" input: "host" device: "/device:IPU:0"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  SignatureDef sig = testing::Signature({{"x", {"x:0"}}}, {{"b", {"b:0"}}});
  auto c = LoopRepeatWrapper::Create(Options(CacheDir("refused")));
  ASSERT_TRUE(c.ok()) << c.status();
  absl::Status s = (*c)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("node 'host' runs on the CPU between IPU nodes"));
  // An input whose inner dimension is unknown.
  g = testing::Graph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 } dim { size: -1 } } } } }
    node { name: "y" op: "Neg" input: "x" device: "/device:IPU:0"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  sig = testing::Signature({{"x", {"x:0"}}}, {{"y", {"y:0"}}});
  s = (*c)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("tensor 'x:0' enters the IPU part with shape [2,?]; only its first "
                        "dimension may be unknown"));
  EXPECT_FALSE(std::filesystem::exists(CacheDir("refused") + "/application.poplar_exec"));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
