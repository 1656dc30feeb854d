#include "tools/bench/huge_page_vector.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

// Small vectors come from operator new; from 2 MB up the buffer is a
// mapping aligned to 2 MB. Values survive growth across the threshold,
// and both kinds are freed (the sanitizers' build checks how).
TEST(HugePageVectorTest, GrowsFromSmallBuffersIntoHugePages) {
  HugePageVector<float> v;
  const size_t n = 3 * tensorflow_ipu::kLargeBufferBytes / sizeof(float);
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<float>(i % 1000));
  ASSERT_GE(v.capacity() * sizeof(float), tensorflow_ipu::kLargeBufferBytes);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % tensorflow_ipu::kLargeBufferBytes, 0u);
  for (size_t i = 0; i < n; i += 4099) ASSERT_EQ(v[i], static_cast<float>(i % 1000)) << i;
  HugePageVector<float> small(10, 1.5f);
  EXPECT_EQ(small[9], 1.5f);
  v.clear();
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 0u);
}

}  // namespace
}  // namespace tfipu_bench
