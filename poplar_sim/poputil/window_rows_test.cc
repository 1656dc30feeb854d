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
              if (count > 0) {
                ASSERT_EQ(w.first, first);
              }
            }
          }
        }
      }
    }
  }
}

// Sizes of 0, -1 (2^64 - 1) and 2^63: no division by zero, no product or
// sum wrapping round to a window that seems to hold the position.
TEST(WindowRowsTest, ExtremeArgumentsGiveExactAnswers) {
  const size_t kMax = ~size_t{0}, k2p63 = size_t{1} << 63;
  EXPECT_EQ(coveringWindows(3, 0, 0, 2, 5).count, 0u) << "stride 0";
  EXPECT_EQ(coveringWindows(3, 1, 0, 0, 5).count, 0u) << "size 0";
  // Window 2 of stride 2^63 starts at 2^64: past any input.
  const WindowSpan far = windowSpan(2, k2p63, 0, 4, 10);
  EXPECT_EQ(far.begin, 10u);
  EXPECT_EQ(far.end, 10u);
  // A padding of 2^64 - 1 puts window 0 wholly before the input.
  const WindowSpan before = windowSpan(0, 1, kMax, 3, 10);
  EXPECT_EQ(before.begin, 0u);
  EXPECT_EQ(before.end, 0u);
  // A window of 2^64 - 1 positions covers the whole input.
  const WindowSpan all = windowSpan(0, 1, 0, kMax, 10);
  EXPECT_EQ(all.begin, 0u);
  EXPECT_EQ(all.end, 10u);
  // Position p = 2^64 - 1 with padding 2, stride 1, size 4: windows
  // o - 2 <= p < o + 2, i.e. o from 2^64 - 2 to 2^64 + 1; among 2^64 - 1
  // outputs only the last, 2^64 - 2.
  const CoveringWindows w = coveringWindows(kMax, 1, 2, 4, kMax);
  EXPECT_EQ(w.first, kMax - 1);
  EXPECT_EQ(w.count, 1u);
  EXPECT_EQ(coveringWindows(kMax, kMax, kMax, kMax, 1).count, 0u);
}

}  // namespace
}  // namespace poputil
}  // namespace poplar_sim
