#include "tools/ipu_saved_model_cli/convert/precision_conversion.h"

#include <cmath>

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
using testing::NodeNames;

// y = relu(x @ w + b) * s, all float; x the input, y the output.
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 1 } dim { size: 2 } } } } }
  node { name: "w" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT
                tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: [1, 2, 3, 4] } } } }
  node { name: "b" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                float_val: [0.5, -100] } } } }
  node { name: "mm" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "biased" op: "BiasAdd" input: "mm" input: "b"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "act" op: "Relu" input: "biased" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "s" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
  node { name: "y" op: "Mul" input: "act" input: "s" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y_1" op: "Neg" input: "act" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

SignatureDef Sig() {
  return testing::Signature({{"x", {"x:0", DT_FLOAT, {1, 2}}}}, {{"y", {"y:0", DT_FLOAT, {1, 2}}}});
}

std::unique_ptr<PrecisionConversion> Make(const std::string& mode,
                                          std::vector<std::string> excluded = {}) {
  ConvertOptions o;
  o.precision_mode = mode;
  o.precision_conversion_excluded_nodes = std::move(excluded);
  absl::StatusOr<std::unique_ptr<PrecisionConversion>> c = PrecisionConversion::Create(o);
  EXPECT_TRUE(c.ok()) << c.status();
  return std::move(*c);
}

std::vector<Tensor> RunOnHost(const GraphDef& g, const std::vector<std::string>& fetches) {
  std::unique_ptr<Session> session = NewSession();
  absl::Status s = session->Create(g);
  EXPECT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session->Run({{"x:0", Tensor::FromVector<float>({1, 1}, TensorShape({1, 2}))}}, fetches, {},
                   &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

TEST(PrecisionConversionTest, NoModeLeavesTheGraph) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  TF_ASSERT_OK(Make("")->Apply(&g, &sig));
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
}

TEST(PrecisionConversionTest, Fp16ConvertsTheBodyAndCastsAtItsBoundaries) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  auto c = Make("FP16");
  EXPECT_EQ(c->name(), "PrecisionConversion");
  TF_ASSERT_OK(c->Apply(&g, &sig));
  for (const char* name : {"mm", "biased", "act", "y_1"}) {
    EXPECT_EQ(FindNode(g, name)->attr().at("T").type(), DT_HALF) << name;
  }
  for (const char* name : {"w", "b", "s"}) {
    EXPECT_EQ(FindNode(g, name)->attr().at("dtype").type(), DT_HALF) << name;
    EXPECT_EQ(FindNode(g, name)->attr().at("value").tensor().dtype(), DT_HALF) << name;
  }
  // The signature's nodes keep their types; only y, not y_1, is protected.
  EXPECT_EQ(FindNode(g, "x")->attr().at("dtype").type(), DT_FLOAT);
  EXPECT_EQ(FindNode(g, "y")->attr().at("T").type(), DT_FLOAT);
  EXPECT_THAT(NodeNames(g), ElementsAre("x", "w", "b", "mm", "mm/CastInsertion_0", "biased",
                                        "act", "s", "y", "y/CastInsertion_0",
                                        "y/CastInsertion_1", "y_1"));
  const NodeDef* in = FindNode(g, "mm/CastInsertion_0");
  EXPECT_EQ(in->op(), "Cast");
  EXPECT_EQ(in->attr().at("SrcT").type(), DT_FLOAT);
  EXPECT_EQ(in->attr().at("DstT").type(), DT_HALF);
  EXPECT_THAT(Inputs(g, "mm/CastInsertion_0"), ElementsAre("x"));
  EXPECT_THAT(Inputs(g, "mm"), ElementsAre("mm/CastInsertion_0", "w"));
  // Both inputs of y are half now, each cast: the input type is found per
  // input (the original carried the first input's over to the next).
  EXPECT_THAT(Inputs(g, "y"), ElementsAre("y/CastInsertion_0", "y/CastInsertion_1"));
  EXPECT_EQ(FindNode(g, "y/CastInsertion_1")->attr().at("SrcT").type(), DT_HALF);
  EXPECT_EQ(FindNode(g, "y/CastInsertion_1")->attr().at("DstT").type(), DT_FLOAT);
  EXPECT_TRUE(testing::SameProto(sig, Sig()));

  // It runs and gives the float model's answer within half precision:
  // relu([4, 6] + [0.5, -100]) * 2 = [9, 0].
  std::vector<Tensor> out = RunOnHost(g, {"y:0", "y_1:0"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype(), DT_FLOAT);
  EXPECT_EQ(out[0].DebugString(), "[[9. 0.]]");
  EXPECT_EQ(out[1].dtype(), DT_HALF);
}

TEST(PrecisionConversionTest, ExcludedNodesKeepTheirPrecision) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  TF_ASSERT_OK(Make("FP16", {"^act$", "^b$"})->Apply(&g, &sig));
  EXPECT_EQ(FindNode(g, "act")->attr().at("T").type(), DT_FLOAT);
  EXPECT_EQ(FindNode(g, "b")->attr().at("dtype").type(), DT_FLOAT);
  EXPECT_EQ(FindNode(g, "biased")->attr().at("T").type(), DT_HALF);
  EXPECT_THAT(Inputs(g, "biased"), ElementsAre("mm", "biased/CastInsertion_1"));
  EXPECT_THAT(Inputs(g, "act"), ElementsAre("act/CastInsertion_0"));
  EXPECT_THAT(Inputs(g, "y"), ElementsAre("act", "y/CastInsertion_1"));
  EXPECT_EQ(RunOnHost(g, {"y:0"})[0].DebugString(), "[[9. 0.]]");
}

TEST(PrecisionConversionTest, AnOpWithoutAKernelForTheTypeStaysAsItWas) {
  // IpuGelu has no double kernel: FP64 leaves it at float, with casts.
  GraphDef g = testing::Graph(R"pb(
    node { name: "x" op: "Placeholder"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 1 } dim { size: 2 } } } } }
    node { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "gelu" op: "IpuGelu" input: "n" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Neg" input: "gelu" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  SignatureDef sig = testing::Signature({{"x", {"x:0", DT_FLOAT, {1, 2}}}},
                                        {{"y", {"y:0", DT_FLOAT, {1, 2}}}});
  TF_ASSERT_OK(Make("FP64")->Apply(&g, &sig));
  EXPECT_EQ(FindNode(g, "n")->attr().at("T").type(), DT_DOUBLE);
  EXPECT_EQ(FindNode(g, "gelu")->attr().at("dtype").type(), DT_FLOAT);
  EXPECT_THAT(Inputs(g, "gelu"), ElementsAre("gelu/CastInsertion_0"));
  EXPECT_EQ(FindNode(g, "gelu/CastInsertion_0")->attr().at("SrcT").type(), DT_DOUBLE);
  // gelu(-1) = -0.158808
  std::vector<Tensor> out = RunOnHost(g, {"y:0"});
  EXPECT_NEAR(out[0].data<float>()[0], 0.158808f, 1e-5);
}

TEST(PrecisionConversionTest, AnUnknownModeFailsCreation) {
  ConvertOptions o;
  o.precision_mode = "FP8";
  EXPECT_EQ(PrecisionConversion::Create(o).status().message(),
            "precision_mode should be FP16, FP32 or FP64, not \"FP8\".");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
