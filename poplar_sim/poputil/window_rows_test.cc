#include "poplar_sim/poputil/window_rows.h"

#include "gtest/gtest.h"

namespace poplar_sim {
namespace poputil {
namespace {

TEST(WindowRowsTest, SpansClipToTheInput) {
  // 3 wide, stride 2, one position of padding, 9 inputs: windows start at
  // -1, 1, 3, 5, 7.
  EXPECT_EQ(windowSpan(0, 2, 1, 3, 9).begin, 0u);
  EXPECT_EQ(windowSpan(0, 2, 1, 3, 9).end, 2u);
  EXPECT_EQ(windowSpan(3, 2, 1, 3, 9).begin, 5u);
  EXPECT_EQ(windowSpan(3, 2, 1, 3, 9).end, 8u);
  EXPECT_EQ(windowSpan(4, 2, 1, 3, 9).end, 9u);
  // A window wholly in the padding is empty.
  const WindowSpan missed = windowSpan(0, 1, 3, 2, 9);
  EXPECT_EQ(missed.begin, missed.end);
}

// coveringWindows agrees with windowSpan for every position and geometry
// of a small range, overlapping, touching and gapped windows included.
TEST(WindowRowsTest, CoveringWindowsAreThoseWhoseSpansHoldThePosition) {
  for (size_t input = 1; input <= 9; ++input) {
    for (size_t size = 1; size <= 4; ++size) {
      for (size_t stride = 1; stride <= 3; ++stride) {
        for (size_t pad = 0; pad < size; ++pad) {
          for (size_t outputs = 1; outputs <= 6; ++outputs) {
            for (size_t p = 0; p < input; ++p) {
              size_t first = 0, count = 0;
              for (size_t o = 0; o < outputs; ++o) {
                const WindowSpan s = windowSpan(o, stride, pad, size, input);
                if (s.begin <= p && p < s.end) {
                  if (count == 0) first = o;
                  ++count;
                }
              }
              const CoveringWindows w = coveringWindows(p, stride, pad, size, outputs);
              ASSERT_EQ(w.count, count) << "input " << input << " size " << size << " stride "
                                        << stride << " pad " << pad << " outputs " << outputs
                                        << " position " << p;
              if (count > 0) ASSERT_EQ(w.first, first);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace poputil
}  // namespace poplar_sim
