#include "tools/ipu_saved_model_cli/convert/manual_sharding.h"

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tools/ipu_saved_model_cli/convert/testing/converter_test_util.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using testing::FindNode;

constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "add" op: "AddV2" input: "x" input: "x" device: "/device:IPU:0"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "add_1" op: "AddV2" input: "add" input: "x" device: "/device:IPU:0"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "mul" op: "Mul" input: "add_1" input: "x" device: "/device:IPU:0"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "neg" op: "Neg" input: "mul" device: "/device:IPU:0"
         attr { key: "T" value { type: DT_FLOAT } } }
)pb";

absl::StatusOr<std::unique_ptr<ManualSharding>> Make(std::vector<std::vector<std::string>> shards,
                                                      int64_t num_ipus) {
  ConvertOptions o;
  o.manual_sharding = std::move(shards);
  o.num_ipus = num_ipus;
  return ManualSharding::Create(o);
}

int64_t Shard(const GraphDef& g, const std::string& name) {
  return FindNode(g, name)->attr().at(kShardAttr).i();
}

TEST(ManualShardingTest, MatchingIpuNodesGoToTheirShardALaterListWinningTheRestTo0) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig;
  auto c = Make({{"add"}, {"^add_1$", "mul"}}, 2);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->name(), "ManualSharding");
  TF_ASSERT_OK((*c)->Apply(&g, &sig));
  EXPECT_EQ(Shard(g, "add"), 0);
  EXPECT_EQ(Shard(g, "add_1"), 1);  // matches both lists: the later wins
  EXPECT_EQ(Shard(g, "mul"), 1);
  EXPECT_EQ(Shard(g, "neg"), 0);  // unmatched
  EXPECT_FALSE(FindNode(g, "x")->attr().contains(kShardAttr));  // not on the IPU
}

TEST(ManualShardingTest, NoShardingLeavesTheGraph) {
  GraphDef g = testing::Graph(kGraph);
  SignatureDef sig;
  auto c = Make({}, 4);
  ASSERT_TRUE(c.ok()) << c.status();
  TF_ASSERT_OK((*c)->Apply(&g, &sig));
  EXPECT_TRUE(testing::SameProto(g, testing::Graph(kGraph)));
}

TEST(ManualShardingTest, TheListsMustBeOnePerIpu) {
  auto c = Make({{"add"}, {"mul"}}, 4);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message(), "The length of manual_sharding (2) should be equal to num_ipus (4).");
}

TEST(ManualShardingTest, AGraphWithNothingOnTheIpuIsRefused) {
  GraphDef g = testing::Graph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "neg" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  SignatureDef sig;
  auto c = Make({{"neg"}}, 1);
  ASSERT_TRUE(c.ok()) << c.status();
  absl::Status s = (*c)->Apply(&g, &sig);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "No ops placed on IPU device to shard.");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
