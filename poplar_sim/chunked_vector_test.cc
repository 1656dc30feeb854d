#include "poplar_sim/chunked_vector.h"

#include <string>

#include "gtest/gtest.h"

namespace poplar_sim {
namespace internal {
namespace {

TEST(ChunkedVectorTest, StartsEmpty) {
  ChunkedVector<int> v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.size(), 0u);
}

TEST(ChunkedVectorTest, IndexesAcrossChunks) {
  ChunkedVector<int, 2> v;  // chunks of 4
  for (int i = 0; i < 11; ++i) v.push_back(i * 10);
  EXPECT_EQ(v.size(), 11u);
  for (int i = 0; i < 11; ++i) EXPECT_EQ(v[i], i * 10) << i;
  v[5] = -1;
  EXPECT_EQ(v[5], -1);
  EXPECT_EQ(v.back(), 100);
}

TEST(ChunkedVectorTest, LaterChunksKeepTheirAddresses) {
  ChunkedVector<std::string, 2> v;
  for (int i = 0; i < 4; ++i) v.push_back(std::to_string(i));
  v.push_back("four");  // the second chunk
  const std::string* second = &v[4];
  for (int i = 5; i < 40; ++i) v.push_back(std::to_string(i));
  EXPECT_EQ(second, &v[4]);
  EXPECT_EQ(v[4], "four");
  EXPECT_EQ(v[39], "39");
}

TEST(ChunkedVectorTest, TruncateAcrossChunksThenGrowAgain) {
  ChunkedVector<int, 2> v;
  for (int i = 0; i < 10; ++i) v.push_back(i);
  v.truncate(3);
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v.back(), 2);
  v.truncate(5);  // keeps more than it has: no change
  EXPECT_EQ(v.size(), 3u);
  for (int i = 3; i < 9; ++i) v.push_back(i * 2);
  EXPECT_EQ(v.size(), 9u);
  EXPECT_EQ(v[2], 2);
  EXPECT_EQ(v[3], 6);
  EXPECT_EQ(v[8], 16);
  v.truncate(0);
  EXPECT_TRUE(v.empty());
  v.push_back(7);
  EXPECT_EQ(v[0], 7);
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
