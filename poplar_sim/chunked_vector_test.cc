#include "poplar_sim/chunked_vector.h"

#include <cstdint>
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
  ChunkedVector<int, 4> v;  // chunks of 4
  for (int i = 0; i < 11; ++i) v.push_back(i * 10);
  EXPECT_EQ(v.size(), 11u);
  for (int i = 0; i < 11; ++i) EXPECT_EQ(v[i], i * 10) << i;
  v[5] = -1;
  EXPECT_EQ(v[5], -1);
  EXPECT_EQ(v.back(), 100);
}

TEST(ChunkedVectorTest, LaterChunksKeepTheirAddresses) {
  ChunkedVector<std::string, 4> v;
  for (int i = 0; i < 4; ++i) v.push_back(std::to_string(i));
  v.push_back("four");  // the second chunk
  const std::string* second = &v[4];
  for (int i = 5; i < 40; ++i) v.push_back(std::to_string(i));
  EXPECT_EQ(second, &v[4]);
  EXPECT_EQ(v[4], "four");
  EXPECT_EQ(v[39], "39");
}

TEST(ChunkedVectorTest, TruncateAcrossChunksThenGrowAgain) {
  ChunkedVector<int, 4> v;
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

// With the default chunk size a chunk fills one 2 MB huge page; elements
// keep their values and addresses across several such chunks.
TEST(ChunkedVectorTest, DefaultChunksFillAHugePage) {
  struct Row {
    uint64_t a, b, c, d;
  };
  ChunkedVector<Row> v;
  const size_t perChunk = kHugePageBytes / sizeof(Row);
  const size_t n = 2 * perChunk + 10;
  for (size_t i = 0; i < perChunk + 1; ++i) v.push_back(Row{i, i + 1, i + 2, i + 3});
  const Row* inSecondChunk = &v[perChunk];
  for (size_t i = perChunk + 1; i < n; ++i) v.push_back(Row{i, i + 1, i + 2, i + 3});
  EXPECT_EQ(inSecondChunk, &v[perChunk]);
  ASSERT_EQ(v.size(), n);
  for (size_t i = 0; i < n; i += 1001) ASSERT_EQ(v[i].d, i + 3) << i;
  EXPECT_EQ(v.back().a, n - 1);
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
