#include "tools/ipu_saved_model_cli/convert/pipeline/memory_tuning.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;

TEST(TuneIfOomTest, LastStageGivesItsHeadToTheLeft) {
  // Capacity 100: stage 1 uses 140 (40 over), stage 0 uses 60 (40 free).
  // Half the free difference is (40 - -40) / 2 = 40: nodes 3 (10), 4 (20)
  // and 5 (20) move, 50 bytes > 40.
  EXPECT_THAT(TuneIfOom({3, 5}, {20, 20, 20, 10, 20, 20, 50, 40}, {60, 140}, 100),
              ElementsAre(6, 2));
}

TEST(TuneIfOomTest, FirstStageGivesItsTailToTheRight) {
  // Stage 0 uses 130 (-30 free), stage 1 uses 50 (50 free): target 40; the
  // tail nodes 3 (30) and 2 (30) move.
  EXPECT_THAT(TuneIfOom({4, 2}, {40, 30, 30, 30, 25, 25}, {130, 50}, 100), ElementsAre(2, 4));
}

TEST(TuneIfOomTest, MiddleStageGivesToTheFreerNeighbourAndKeepsOneNode) {
  // Stage 1 (1000 used) is far over; stage 2 has more free memory than
  // stage 0. Everything but one node moves right.
  EXPECT_THAT(TuneIfOom({1, 3, 1}, {10, 400, 300, 300, 10}, {10, 1000, 5}, 100),
              ElementsAre(1, 1, 3));
}

TEST(TuneIfOomTest, NothingMovesWhenEverythingFits) {
  EXPECT_THAT(TuneIfOom({2, 2}, {1, 1, 1, 1}, {2, 2}, 100), ElementsAre(2, 2));
  EXPECT_THAT(TuneIfOom({4}, {1, 1, 1, 1}, {400}, 100), ElementsAre(4));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
