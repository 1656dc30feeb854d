#include "tools/ipu_saved_model_cli/convert/converter_pipeline.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tools/ipu_saved_model_cli/convert/testing/converter_test_util.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Names(const ConverterList& list) {
  std::vector<std::string> names;
  for (const auto& c : list) names.emplace_back(c->name());
  return names;
}

TEST(ConverterPipelineTest, TheConvertersComeInTheOriginalsOrder) {
  absl::StatusOr<ConverterList> list = BuildConverters(ConvertOptions());
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(Names(*list), ElementsAre("GeluReplacement", "IPUPlacement", "Int64Conversion",
                                        "PrecisionConversion", "ManualSharding",
                                        "IPUCompilerWrapper", "LoopRepeatWrapper"));
}

TEST(ConverterPipelineTest, CreationChecksEachConvertersOptions) {
  ConvertOptions o;
  o.manual_sharding = {{"a"}, {"b"}};
  EXPECT_EQ(BuildConverters(o).status().message(),
            "The length of manual_sharding (2) should be equal to num_ipus (1).");
}

TEST(ConverterPipelineTest, PipelineCfgAddsItsConverterBeforeTheLoopWrapper) {
  ConvertOptions o;
  o.num_ipus = 2;
  o.pipeline_cfg = {{"converter", "manual"},
                    {"manual_pipeline_config", {{"^a"}, {"^b"}}},
                    {"device_info", {0, 1}}};
  absl::StatusOr<ConverterList> list = BuildConverters(o);
  TF_ASSERT_OK(list);
  ASSERT_FALSE(list->empty());
  ASSERT_GE(list->size(), 2u);
  EXPECT_EQ((*list)[list->size() - 2]->name(), "ManualPipeline");
  EXPECT_EQ(list->back()->name(), "LoopRepeatWrapper");
  // The pipeline converter checks its configuration when it is built.
  o.pipeline_cfg = {{"converter", "manual"}};
  absl::Status s = BuildConverters(o).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "The `manual_pipeline_config` argument is required in `pipeline_cfg` for the manual "
            "converter.");
  // So does the loop-repeat wrapper, in the original's words.
  o.pipeline_cfg = nullptr;
  o.int64_to_int32_conversion = true;
  o.embedded_runtime_save_config = {{"embedded_runtime_exec_cachedir", "c"}};
  s = BuildConverters(o).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Key 'runtime_api_timeout_us' missing from `embedded_runtime_save_config`. "
            "`embedded_runtime_save_config` must be a dictionary containing the following items "
            "{ 'embedded_runtime_exec_cachedir': The cache output directory of the embedded "
            "application runtime, 'runtime_api_timeout_us': The timeout for the embedded "
            "application }.");
}

constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

TEST(ConverterPipelineTest, AppliedInOrderAndAllOrNothing) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = testing::Signature({{"x", {"x:0"}}}, {{"y", {"y:0"}}});
  ConvertOptions o;
  o.num_ipus = 2;
  o.manual_sharding = {{"^y"}, {"^z"}};
  absl::StatusOr<ConverterList> list = BuildConverters(o);
  ASSERT_TRUE(list.ok()) << list.status();
  TF_ASSERT_OK(ApplyConverters(*list, &g, &sig));
  // Placed first, then sharded.
  EXPECT_EQ(testing::FindNode(g, "y")->device(), "/device:IPU:0");
  EXPECT_EQ(testing::FindNode(g, "y")->attr().at("_ipu_shard").i(), 0);

  // Without placement, the sharding fails and nothing changes.
  o.no_ipu_placement = true;
  o.precision_mode = "FP16";
  list = BuildConverters(o);
  ASSERT_TRUE(list.ok()) << list.status();
  GraphDef g2 = testing::Graph(kGraph);
  absl::Status s = ApplyConverters(*list, &g2, &sig);
  EXPECT_EQ(s.message(), "No ops placed on IPU device to shard.");
  EXPECT_TRUE(testing::SameProto(g2, testing::Graph(kGraph)));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
