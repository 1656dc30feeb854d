#include "tools/ipu_saved_model_cli/convert/gelu_replacement.h"

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

// Two GELUs written out of primitive ops (only their shape matters here:
// 0.5 * d * (1 + tanh(d))), listed so that the second GELU's input comes
// before the first GELU's consumer: the original would wire out1 to the
// second GELU.
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 4 } } } } }
  node { name: "half" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.5 } } } }
  node { name: "dense1" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "dense2" op: "Neg" input: "dense1" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "gelu1/tanh" op: "Tanh" input: "dense1" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "gelu1/out" op: "Mul" input: "gelu1/tanh" input: "half"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "gelu2/tanh" op: "Tanh" input: "dense2" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "gelu2/out" op: "Mul" input: "gelu2/tanh" input: "half"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "out1" op: "Identity" input: "gelu1/out" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "out2" op: "Identity" input: "gelu2/out" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

SignatureDef Sig() {
  return testing::Signature({{"x", {"x:0", DT_FLOAT, {4}}}},
                            {{"out1", {"out1:0", DT_FLOAT, {4}}}, {"out2", {"out2:0", DT_FLOAT, {4}}}});
}

absl::StatusOr<std::unique_ptr<GeluReplacement>> Make(GeluReplacementOptions gelu) {
  ConvertOptions o;
  o.gelu_replacement = std::move(gelu);
  return GeluReplacement::Create(o);
}

TEST(GeluReplacementTest, EachGeluBecomesOneIpuGeluWiredToItsOwnConsumer) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  auto c = Make({{"^gelu"}, {"^dense"}, {"^out"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->name(), "GeluReplacement");
  TF_ASSERT_OK((*c)->Apply(&g, &sig));
  EXPECT_THAT(NodeNames(g), ElementsAre("x", "half", "dense1", "dense1/IpuGelu", "dense2",
                                        "dense2/IpuGelu", "out1", "out2"));
  const NodeDef* gelu = FindNode(g, "dense1/IpuGelu");
  EXPECT_EQ(gelu->op(), "IpuGelu");
  EXPECT_EQ(gelu->attr().at("dtype").type(), DT_FLOAT);
  EXPECT_THAT(Inputs(g, "dense1/IpuGelu"), ElementsAre("dense1"));
  EXPECT_THAT(Inputs(g, "out1"), ElementsAre("dense1/IpuGelu"));
  EXPECT_THAT(Inputs(g, "out2"), ElementsAre("dense2/IpuGelu"));

  // It runs: out1 = gelu(-x), out2 = gelu(x), the tanh approximation.
  std::unique_ptr<Session> session = NewSession();
  TF_ASSERT_OK(session->Create(g));
  std::vector<Tensor> out;
  TF_ASSERT_OK(session->Run({{"x:0", Tensor::Vector<float>({1, 0, -1, -2})}}, {"out1:0", "out2:0"},
                            {}, &out));
  const float expected1[] = {-0.158808f, 0.f, 0.841192f, 1.954598f};
  const float expected2[] = {0.841192f, 0.f, -0.158808f, -0.045402f};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(out[0].data<float>()[i], expected1[i], 1e-5) << i;
    EXPECT_NEAR(out[1].data<float>()[i], expected2[i], 1e-5) << i;
  }
}

TEST(GeluReplacementTest, WithoutTheOptionNothingChanges) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  auto c = GeluReplacement::Create(ConvertOptions());
  ASSERT_TRUE(c.ok()) << c.status();
  TF_ASSERT_OK((*c)->Apply(&g, &sig));
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
}

TEST(GeluReplacementTest, AnInputWithoutATypeIsNamed) {
  GraphDef g = testing::Graph(R"pb(node { name: "dense" op: "NoOp" })pb");
  SignatureDef sig;
  auto c = Make({{"^gelu"}, {"^dense"}, {"^out"}});
  ASSERT_TRUE(c.ok()) << c.status();
  absl::Status s = (*c)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "dense/IpuGelu can not get type from dense.");
}

TEST(GeluReplacementTest, AReaderOfADeletedNodeThatIsNoConsumerIsRefused) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  auto c = Make({{"^gelu"}, {"^dense"}, {"^out1$"}});
  ASSERT_TRUE(c.ok()) << c.status();
  absl::Status s = (*c)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "gelu_replacement deletes 'gelu2/out', which node 'out2' reads; add that node to "
            "node_use_gelu_output or exclude 'gelu2/out' from nodes");
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
}

TEST(GeluReplacementTest, ADeletedNodeOfNoKnownGeluIsRefused) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = Sig();
  auto c = Make({{"^gelu"}, {"^dense1$"}, {"^out"}});
  ASSERT_TRUE(c.ok()) << c.status();
  absl::Status s = (*c)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "gelu_replacement: deleted node 'gelu2/out' reads no node of node_as_gelu_input, "
            "so which GELU it belongs to is unknown; check the patterns");
}

TEST(GeluReplacementTest, ADeletedSignatureOutputIsRefused) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig = testing::Signature({{"x", {"x:0", DT_FLOAT, {4}}}},
                                        {{"t", {"gelu1/tanh:0", DT_FLOAT, {4}}}});
  auto c = Make({{"^gelu"}, {"^dense"}, {"^out"}});
  ASSERT_TRUE(c.ok()) << c.status();
  absl::Status s = (*c)->Apply(&g, &sig);
  EXPECT_EQ(s.message(),
            "gelu_replacement deletes 'gelu1/tanh', which signature output 't' names; exclude "
            "it from nodes");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
