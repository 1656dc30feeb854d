#include "Eigen/Core"
#include "poplar_sim/popnn/pooling.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/testing/run_util.h"
#include "poplar_sim/testing/window_testing.h"

namespace poplar_sim {
namespace popnn {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::RunBothModes;
using testing::RunOnce;
using testing::SpreadConstant;
using testing::SquareWindow;

// 2x2 windows, stride 2, on one 4x4 image of one channel. Ties go to the
// first maximum in row-major order.
TEST(MaxPoolTest, TwoByTwoByHandWithTies) {
  const MaxPoolParams p = SquareWindow(1, 4, 4, 1, 2, 2, 0, 2, 2);
  auto r = RunBothModes([&](Graph& g, program::Sequence& prog) {
    Tensor x = SpreadConstant(g, {1, 4, 4, 1},
                     {1, 5, 2, 2,  //
                      3, 4, 2, 2,  //
                      -1, -2, 7, 0,  //
                      -3, -1, 0, 7});
    Tensor dy = SpreadConstant(g, {1, 2, 2, 1}, {10, 20, 30, 40});
    return std::vector<Tensor>{maxPool(g, x, p, prog),
                               maxPoolInputGradient(g, x, dy, p, prog)};
  });
  EXPECT_THAT(r[0], ElementsAre(5, 2, -1, 7));
  EXPECT_THAT(r[1], ElementsAre(0, 10, 20, 0,  //
                                0, 0, 0, 0,    //
                                30, 0, 40, 0,  //
                                0, 0, 0, 0));
}

// Independent of the library's code: the windows of TensorFlow's CPU
// kernels, with padding outside every window, and gradients added window
// by window in float.
struct Reference {
  std::vector<float> pooled, gradient;
};
Reference Compute(const MaxPoolParams& p, const std::vector<float>& x,
                  const std::vector<float>& dy) {
  const int64_t C = p.channels, H = p.inRows, W = p.inCols;
  Reference r;
  r.pooled.assign(p.batch * p.outRows * p.outCols * C, 0.f);
  r.gradient.assign(x.size(), 0.f);
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t oy = 0; oy < p.outRows; ++oy) {
      for (size_t ox = 0; ox < p.outCols; ++ox) {
        for (int64_t c = 0; c < C; ++c) {
          int64_t best = -1;
          for (int64_t i = 0; i < int64_t(p.windowRows); ++i) {
            for (int64_t j = 0; j < int64_t(p.windowCols); ++j) {
              const int64_t y = int64_t(oy * p.strideRows) - int64_t(p.padTop) + i;
              const int64_t xx = int64_t(ox * p.strideCols) - int64_t(p.padLeft) + j;
              if (y < 0 || y >= H || xx < 0 || xx >= W) continue;
              const int64_t at = ((int64_t(b) * H + y) * W + xx) * C + c;
              if (best < 0 || x[at] > x[best]) best = at;
            }
          }
          const size_t o = ((b * p.outRows + oy) * p.outCols + ox) * C + c;
          r.pooled[o] = x[best];
          r.gradient[best] += dy[o];
        }
      }
    }
  }
  return r;
}

std::vector<float> Values(size_t n, int salt) {
  std::vector<float> v(n);
  // Few distinct values, so that windows hold ties; products that round.
  for (size_t i = 0; i < n; ++i) v[i] = float((i * (7 + salt)) % 11) * 0.3f - 1.1f;
  return v;
}

// Overlapping 3x3 windows with stride 2 and padding on each side (as
// TensorFlow's SAME gives for 9x7 inputs), several images and channels,
// float and half; both execution modes agree bit for bit, with each other
// and with the reference.
TEST(MaxPoolTest, OverlappingPaddedWindowsMatchTheReference) {
  const MaxPoolParams p = SquareWindow(3, 9, 7, 5, 3, 2, 1, 5, 4);
  const std::vector<float> x = Values(3 * 9 * 7 * 5, 0), dy = Values(3 * 5 * 4 * 5, 3);
  const Reference want = Compute(p, x, dy);
  for (Type type : {FLOAT, HALF}) {
    auto r = RunBothModes([&](Graph& g, program::Sequence& prog) {
      Tensor xt = SpreadConstant(g, {3, 9, 7, 5}, x, type);
      Tensor dyt = SpreadConstant(g, {3, 5, 4, 5}, dy, type);
      return std::vector<Tensor>{maxPool(g, xt, p, prog),
                                 maxPoolInputGradient(g, xt, dyt, p, prog)};
    });
    ASSERT_EQ(r[0].size(), want.pooled.size());
    ASSERT_EQ(r[1].size(), want.gradient.size());
    for (size_t i = 0; i < want.pooled.size(); ++i) {
      const float w = type == HALF ? float(Eigen::half(want.pooled[i])) : want.pooled[i];
      ASSERT_EQ(r[0][i], w) << typeName(type) << " pooled element " << i;
    }
    for (size_t i = 0; i < want.gradient.size(); ++i) {
      if (type == FLOAT) {
        ASSERT_EQ(r[1][i], want.gradient[i]) << "gradient element " << i;
      } else {  // half inputs: the sums are rounded once, at the end
        ASSERT_NEAR(r[1][i], want.gradient[i], 4e-3 * (1 + std::fabs(want.gradient[i])))
            << "half gradient element " << i;
      }
    }
  }
}

// Strides larger than the window leave input rows no window reads: their
// gradient is zero.
TEST(MaxPoolTest, RowsNoWindowCoversGetZeroGradient) {
  const MaxPoolParams p = SquareWindow(1, 5, 5, 1, 1, 2, 0, 3, 3);
  const std::vector<float> x = Values(25, 1), dy = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  auto r = RunBothModes([&](Graph& g, program::Sequence& prog) {
    return std::vector<Tensor>{
        maxPoolInputGradient(g, SpreadConstant(g, {1, 5, 5, 1}, x), SpreadConstant(g, {1, 3, 3, 1}, dy), p, prog)};
  });
  EXPECT_THAT(r[0], ElementsAre(1, 0, 2, 0, 3,  //
                                0, 0, 0, 0, 0,  //
                                4, 0, 5, 0, 6,  //
                                0, 0, 0, 0, 0,  //
                                7, 0, 8, 0, 9));
}

// A NaN that comes first in its window stays the maximum; one that comes
// later never replaces it (the `>` comparison, as the CPU kernel).
TEST(MaxPoolTest, NaNsFollowTheComparison) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const MaxPoolParams p = SquareWindow(1, 2, 4, 1, 2, 2, 0, 1, 2);
  auto r = RunBothModes([&](Graph& g, program::Sequence& prog) {
    return std::vector<Tensor>{
        maxPool(g, SpreadConstant(g, {1, 2, 4, 1}, {nan, 1, 2, nan, 3, 4, 0, 1}), p, prog)};
  });
  ASSERT_EQ(r[0].size(), 2u);
  EXPECT_TRUE(std::isnan(r[0][0]));
  EXPECT_EQ(r[0][1], 2);
}

// Splitting the work over host threads changes no bit.
TEST(MaxPoolTest, HostThreadsChangeNoValue) {
  const MaxPoolParams p = SquareWindow(8, 12, 12, 4, 3, 2, 1, 6, 6);
  const std::vector<float> x = Values(8 * 12 * 12 * 4, 2), dy = Values(8 * 6 * 6 * 4, 5);
  auto build = [&](Graph& g, program::Sequence& prog) {
    Tensor xt = SpreadConstant(g, {8, 12, 12, 4}, x);
    return std::vector<Tensor>{maxPool(g, xt, p, prog),
                               maxPoolInputGradient(g, xt, SpreadConstant(g, {8, 6, 6, 4}, dy), p, prog)};
  };
  const auto one = RunOnce(build, 16);
  SpawnedHostThreads three(3);
  const auto split = RunOnce(build, 16, {}, &three);
  ASSERT_EQ(one.size(), 2u);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(one[0], split[0]);
  EXPECT_EQ(one[1], split[1]);
}

absl::Status BuildError(const MaxPoolParams& p, std::vector<size_t> inShape, Type type,
                        std::vector<size_t> gradShape = {}) {
  Graph g(*Target::createIPUTarget(1, "ipu2", 4));
  program::Sequence prog;
  size_t n = 1;
  for (size_t d : inShape) n *= d;
  Tensor in = SpreadConstant(g, inShape, std::vector<float>(n, 1.f), type);
  if (gradShape.empty()) {
    maxPool(g, in, p, prog);
  } else {
    size_t m = 1;
    for (size_t d : gradShape) m *= d;
    maxPoolInputGradient(g, in, SpreadConstant(g, gradShape, std::vector<float>(m, 1.f), type), p, prog);
  }
  return g.status();
}

TEST(MaxPoolTest, BadParametersAreRefusedWithTheirNumbers) {
  const MaxPoolParams p = SquareWindow(1, 4, 4, 2, 2, 2, 0, 2, 2);
  absl::Status s = BuildError(p, {1, 4, 5, 2}, FLOAT);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("does not match the input [1,4,4,2]"));

  s = BuildError(p, {1, 4, 4, 2}, INT);
  EXPECT_THAT(std::string(s.message()), HasSubstr("pooling takes float or half")) << s;

  MaxPoolParams padded = p;
  padded.padTop = 2;  // the first window lies wholly in the padding
  s = BuildError(padded, {1, 4, 4, 2}, FLOAT);
  EXPECT_THAT(std::string(s.message()), HasSubstr("a window holds no input position")) << s;

  MaxPoolParams tooMany = p;
  tooMany.outCols = 3;  // the third window starts at column 4 of 4
  s = BuildError(tooMany, {1, 4, 4, 2}, FLOAT);
  EXPECT_THAT(std::string(s.message()), HasSubstr("a window holds no input position")) << s;

  MaxPoolParams noStride = p;
  noStride.strideRows = 0;
  s = BuildError(noStride, {1, 4, 4, 2}, FLOAT);
  EXPECT_THAT(std::string(s.message()), HasSubstr("must be at least 1")) << s;

  s = BuildError(p, {1, 4, 4, 2}, FLOAT, {1, 2, 3, 2});
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("must have the input's type and the output's shape"));
}

}  // namespace
}  // namespace popnn
}  // namespace poplar_sim
