#include "tools/ipu_saved_model_cli/convert/int64_conversion.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/runtime/session.h"
#include "tools/ipu_saved_model_cli/convert/testing/converter_test_util.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;
using testing::FindNode;
using testing::Inputs;

// ids (int64) + offset (an int64 Const) -> sum; sum summed over axis 0
// (an int64 axis) -> total.
constexpr char kGraph[] = R"pb(
  node { name: "ids" op: "Placeholder"
         attr { key: "dtype" value { type: DT_INT64 } }
         attr { key: "shape" value { shape { dim { size: 3 } } } } }
  node { name: "offset" op: "Const"
         attr { key: "dtype" value { type: DT_INT64 } }
         attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: 100 } } } }
  node { name: "sum" op: "AddV2" input: "ids" input: "offset"
         attr { key: "T" value { type: DT_INT64 } } }
  node { name: "axis" op: "Const"
         attr { key: "dtype" value { type: DT_INT64 } }
         attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: 0 } } } }
  node { name: "total" op: "Sum" input: "sum" input: "axis"
         attr { key: "T" value { type: DT_INT64 } } attr { key: "Tidx" value { type: DT_INT64 } } }
)pb";

SignatureDef Sig() {
  return testing::Signature({{"ids", {"ids:0", DT_INT64, {3}}}},
                            {{"sum", {"sum:0", DT_INT64, {3}}}, {"total", {"total:0", DT_INT64, {}}}});
}

std::unique_ptr<Int64Conversion> Make(bool enabled) {
  ConvertOptions o;
  o.int64_to_int32_conversion = enabled;
  absl::StatusOr<std::unique_ptr<Int64Conversion>> c = Int64Conversion::Create(o);
  EXPECT_TRUE(c.ok()) << c.status();
  return std::move(*c);
}

TEST(Int64ConversionTest, OffLeavesTheGraph) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  TF_ASSERT_OK(Make(false)->Apply(&g, &sig));
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
}

TEST(Int64ConversionTest, TheGraphComputesInInt32AndTheSignatureKeepsInt64) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  auto c = Make(true);
  EXPECT_EQ(c->name(), "Int64Conversion");
  TF_ASSERT_OK(c->Apply(&g, &sig));
  // The input stays int64 and feeds a host cast.
  EXPECT_EQ(FindNode(g, "ids")->attr().at("dtype").type(), DT_INT64);
  const NodeDef* in_cast = FindNode(g, "ids/ToInt32");
  ASSERT_NE(in_cast, nullptr);
  EXPECT_EQ(in_cast->op(), "Cast");
  EXPECT_EQ(in_cast->device(), "");
  EXPECT_EQ(in_cast->attr().at("SrcT").type(), DT_INT64);
  EXPECT_EQ(in_cast->attr().at("DstT").type(), DT_INT32);
  EXPECT_THAT(Inputs(g, "sum"), ElementsAre("ids/ToInt32", "offset"));
  // Between, everything is int32, constants re-encoded.
  EXPECT_EQ(FindNode(g, "sum")->attr().at("T").type(), DT_INT32);
  EXPECT_EQ(FindNode(g, "total")->attr().at("Tidx").type(), DT_INT32);
  const NodeDef* offset = FindNode(g, "offset");
  EXPECT_EQ(offset->attr().at("dtype").type(), DT_INT32);
  EXPECT_EQ(offset->attr().at("value").tensor().dtype(), DT_INT32);
  // The outputs are cast back, and the signature names the casts.
  EXPECT_EQ(sig.outputs().at("sum").name(), "sum/ToInt64:0");
  EXPECT_EQ(sig.outputs().at("sum").dtype(), DT_INT64);
  EXPECT_EQ(sig.outputs().at("total").name(), "total/ToInt64:0");
  EXPECT_EQ(sig.inputs().at("ids").name(), "ids:0");
  EXPECT_EQ(sig.inputs().at("ids").dtype(), DT_INT64);

  // It runs with the original's int64 inputs and gives int64 outputs.
  std::unique_ptr<Session> session = NewSession();
  TF_ASSERT_OK(session->Create(g));
  std::vector<Tensor> out;
  TF_ASSERT_OK(session->Run({{"ids:0", Tensor::Vector<int64_t>({1, 2, 3})}},
                            {"sum/ToInt64:0", "total/ToInt64:0", "sum:0"}, {}, &out));
  EXPECT_EQ(out[0].dtype(), DT_INT64);
  EXPECT_EQ(out[0].DebugString(), "[101 102 103]");
  EXPECT_EQ(out[1].dtype(), DT_INT64);
  EXPECT_EQ(out[1].DebugString(), "306");
  EXPECT_EQ(out[2].dtype(), DT_INT32);
}

TEST(Int64ConversionTest, AConstantInt32CannotHoldIsRefusedAndNothingChanges) {
  std::string text = kGraph;
  text.replace(text.find("int64_val: 100"), 14, "int64_val: 4294967296");
  GraphDef g = testing::Graph(text);
  SignatureDef sig = Sig();
  absl::Status s = Make(true)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "int64_to_int32_conversion: node 'offset' (Const) holds 4294967296, which int32 "
            "cannot hold; exclude the node from the IPU or leave out --int64_to_int32_conversion");
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(text)));
  EXPECT_TRUE(testing::SameProto(sig, Sig()));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
