#include "poplar_sim/program_check.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace poplar_sim {
namespace internal {
namespace {

using namespace program;  // NOLINT: the Poplar style
using ::testing::HasSubstr;

TEST(ProgramCheckTest, SharedChildrenAreNotACycle) {
  Sequence leaf({}, "leaf");
  Sequence a({leaf, leaf}, "a");
  Sequence root({a, a, Repeat(3, leaf)}, "root");
  absl::Status s = checkPrograms({root, a});
  EXPECT_TRUE(s.ok()) << s;
}

TEST(ProgramCheckTest, CycleNamesTheProgramAndIsCut) {
  Sequence outer({}, "outer");
  Sequence inner({}, "inner");
  outer.add(inner);
  inner.add(Repeat(2, outer, "again"));
  absl::Status s = checkPrograms({Sequence(), outer});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Program 1: the Repeat 'again' contains itself"));
  // The closing child was removed (so the nodes can be freed), and the
  // program stays in error.
  EXPECT_TRUE(outer.node()->children[0].node()->children[0].node()->children.empty());
  absl::Status again = checkPrograms({outer});
  EXPECT_EQ(again.code(), absl::StatusCode::kInvalidArgument) << again;
  EXPECT_THAT(std::string(again.message()), HasSubstr("'again' contains itself"));
}

TEST(ProgramCheckTest, SwitchCaseThatContainsTheSwitchIsCut) {
  Switch sw(Tensor(), Sequence(), "sw");
  sw.add(5, Sequence({sw}, "case5"));
  absl::Status s = checkPrograms({sw});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("the Sequence 'case5' contains itself"));
  EXPECT_EQ(sw.node()->caseValues.size(), 1u);
}

TEST(ProgramCheckTest, SequenceAddedToItselfIsRefusedAtOnce) {
  Sequence loop({}, "loop");
  loop.add(loop);
  EXPECT_TRUE(loop.node()->children.empty());
  absl::Status s = checkPrograms({loop});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("the Sequence 'loop' contains itself"));
}

TEST(ProgramCheckTest, ExponentialSharingIsRefused) {
  // Each level holds the previous one twice: 2^40 steps once expanded.
  Program p = Sequence();
  for (int i = 0; i < 40; ++i) p = Sequence({p, p});
  absl::Status s = checkPrograms({p});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("more than 16777216 steps"));
  // 2^20 steps are fine.
  Program q = Sequence();
  for (int i = 0; i < 19; ++i) q = Sequence({q, q});
  absl::Status ok = checkPrograms({q});
  EXPECT_TRUE(ok.ok()) << ok;
}

TEST(ProgramCheckTest, DeepNestingIsCheckedAndFreedWithoutRecursion) {
  Sequence root({}, "root");
  Sequence cur = root;
  for (int i = 0; i < 200000; ++i) {
    Sequence next;
    cur.add(next);
    cur = next;
  }
  absl::Status s = checkPrograms({root});
  EXPECT_TRUE(s.ok()) << s;
  // Closing the cycle at the bottom is found, 200,000 levels down.
  cur.add(root);
  s = checkPrograms({root});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  // Leaving scope frees 200,000 nested nodes (the destructor iterates).
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
