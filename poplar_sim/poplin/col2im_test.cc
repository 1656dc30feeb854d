#include "poplar_sim/poplin/col2im.h"

#include <cmath>
#include <vector>

#include "Eigen/Core"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/testing/run_util.h"
#include "poplar_sim/testing/window_testing.h"

namespace poplar_sim {
namespace poplin {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::RunBothModes;
using testing::RunOnce;
using testing::SpreadConstant;
using testing::SquareWindow;

// Independent of the library's code: each tap's column added, one tap after
// the other, into a zeroed padded tensor, rounding to T after each addition.
template <typename T>
std::vector<float> TapByTap(const poputil::Window2D& w, const std::vector<float>& cols) {
  const int64_t C = w.channels, KH = w.windowRows, KW = w.windowCols;
  std::vector<T> dx(w.batch * w.inRows * w.inCols * C, T(0));
  for (int64_t ky = 0; ky < KH; ++ky) {
    for (int64_t kx = 0; kx < KW; ++kx) {
      for (size_t b = 0; b < w.batch; ++b) {
        for (size_t oy = 0; oy < w.outRows; ++oy) {
          for (size_t ox = 0; ox < w.outCols; ++ox) {
            const int64_t y = int64_t(oy * w.strideRows) - int64_t(w.padTop) + ky;
            const int64_t x = int64_t(ox * w.strideCols) - int64_t(w.padLeft) + kx;
            if (y < 0 || y >= int64_t(w.inRows) || x < 0 || x >= int64_t(w.inCols)) continue;
            for (int64_t c = 0; c < C; ++c) {
              const size_t src = ((b * w.outRows + oy) * w.outCols + ox) * (KH * KW * C) +
                                 (ky * KW + kx) * C + c;
              T& d = dx[((b * w.inRows + y) * w.inCols + x) * C + c];
              d = static_cast<T>(static_cast<float>(d) + static_cast<float>(T(cols[src])));
            }
          }
        }
      }
    }
  }
  return std::vector<float>(dx.begin(), dx.end());
}

std::vector<float> Values(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float((i * 7) % 23) * 0.131f - 1.4f;
  return v;
}

TEST(Col2ImTest, OneChannelByHand) {
  // A 3x3 input, 2x2 windows at stride 1: 4 windows of 4 taps each. Input
  // (1, 1) is read by every window, (0, 0) by the first only.
  const poputil::Window2D w = SquareWindow(1, 3, 3, 1, 2, 1, 0, 2, 2);
  auto r = RunBothModes([&](Graph& g, program::Sequence& prog) {
    Tensor cols = SpreadConstant(g, {4, 4}, {1, 2, 3, 4,  //
                                    10, 20, 30, 40,  //
                                    100, 200, 300, 400,  //
                                    1000, 2000, 3000, 4000});
    return std::vector<Tensor>{col2im(g, cols, w, prog)};
  });
  EXPECT_THAT(r[0], ElementsAre(1, 12, 20,  //
                                103, 1234, 2040,  //
                                300, 3400, 4000));
}

// Overlapping, padded and strided windows over several images and
// channels, float and half: bit for bit the tap-by-tap sums.
TEST(Col2ImTest, MatchesTapByTapAdditionBitForBit) {
  for (const poputil::Window2D& w :
       {SquareWindow(2, 7, 6, 3, 3, 1, 1, 7, 6), SquareWindow(3, 9, 7, 5, 3, 2, 1, 5, 4),
        SquareWindow(1, 5, 5, 2, 1, 2, 0, 3, 3)}) {
    const size_t rows = w.batch * w.outRows * w.outCols,
                 patch = w.windowRows * w.windowCols * w.channels;
    const std::vector<float> cols = Values(rows * patch);
    for (Type type : {FLOAT, HALF}) {
      auto r = RunBothModes([&](Graph& g, program::Sequence& prog) {
        return std::vector<Tensor>{col2im(g, SpreadConstant(g, {rows, patch}, cols, type), w, prog)};
      });
      const std::vector<float> want =
          type == FLOAT ? TapByTap<float>(w, cols) : TapByTap<Eigen::half>(w, cols);
      ASSERT_EQ(r[0].size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(r[0][i], want[i]) << poputil::describe(w) << " " << typeName(type)
                                    << " element " << i;
      }
    }
  }
}

TEST(Col2ImTest, HostThreadsChangeNoValue) {
  const poputil::Window2D w = SquareWindow(6, 13, 13, 8, 3, 1, 0, 11, 11);
  const std::vector<float> cols = Values(6 * 11 * 11 * 72);
  auto build = [&](Graph& g, program::Sequence& prog) {
    return std::vector<Tensor>{col2im(g, SpreadConstant(g, {6 * 11 * 11, 72}, cols), w, prog)};
  };
  const auto one = RunOnce(build, 16);
  SpawnedHostThreads three(3);
  const auto split = RunOnce(build, 16, {}, &three);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(one[0], split[0]);
}

TEST(Col2ImTest, BadInputIsRefusedWithItsNumbers) {
  const poputil::Window2D w = SquareWindow(1, 4, 4, 2, 2, 2, 0, 2, 2);
  {
    Graph g(*Target::createIPUTarget(1, "ipu2", 4));
    program::Sequence prog;
    col2im(g, SpreadConstant(g, {4, 7}, std::vector<float>(28, 1.f)), w, prog);
    EXPECT_TRUE(absl::IsInvalidArgument(g.status())) << g.status();
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("is not the im2col matrix [batch * outRows * outCols, windowRows * "
                          "windowCols * channels] of the input [1,4,4,2]"));
  }
  {
    Graph g(*Target::createIPUTarget(1, "ipu2", 4));
    program::Sequence prog;
    poputil::Window2D outside = w;
    outside.padLeft = 2;
    col2im(g, SpreadConstant(g, {4, 8}, std::vector<float>(32, 1.f)), outside, prog);
    EXPECT_THAT(std::string(g.status().message()), HasSubstr("a window holds no input position"))
        << g.status();
  }
  {
    Graph g(*Target::createIPUTarget(1, "ipu2", 4));
    program::Sequence prog;
    col2im(g, SpreadConstant(g, {4, 8}, std::vector<float>(32, 1.f), INT), w, prog);
    EXPECT_THAT(std::string(g.status().message()), HasSubstr("col2im takes float or half"))
        << g.status();
  }
}

}  // namespace
}  // namespace poplin
}  // namespace poplar_sim
