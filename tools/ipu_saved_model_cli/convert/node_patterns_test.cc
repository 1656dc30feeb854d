#include "tools/ipu_saved_model_cli/convert/node_patterns.h"

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

TEST(NodePatternsTest, SearchMatchesAnywhereAsPythonsReSearch) {
  absl::StatusOr<NodePatterns> p = NodePatterns::Compile({"add", "^mul$"}, "excluded_nodes");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->Search("add"));
  EXPECT_TRUE(p->Search("add_1"));
  EXPECT_TRUE(p->Search("dense/add"));
  EXPECT_TRUE(p->Search("mul"));
  EXPECT_FALSE(p->Search("mul_1"));
  EXPECT_FALSE(p->Search("sub"));
}

TEST(NodePatternsTest, MatchAtStartIsAnchoredAtTheStartOnly) {
  absl::StatusOr<NodePatterns> p = NodePatterns::Compile({"dense"}, "stage");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->MatchAtStart("dense/MatMul"));
  EXPECT_FALSE(p->MatchAtStart("model/dense"));
}

TEST(NodePatternsTest, AnEmptyListMatchesNothing) {
  NodePatterns p;
  EXPECT_TRUE(p.empty());
  EXPECT_FALSE(p.Search("x"));
  absl::StatusOr<NodePatterns> q = NodePatterns::Compile({}, "excluded_nodes");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_FALSE(q->Search(""));
}

TEST(NodePatternsTest, AnInvalidPatternNamesTheOptionAndThePattern) {
  absl::StatusOr<NodePatterns> p = NodePatterns::Compile({"ok", "(add"}, "manual_sharding");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(),
            "manual_sharding: \"(add\" is not a valid regular expression (missing ): (add); "
            "write it in Python's re syntax, without backreferences or lookaround");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
