#include "third_party/dnnl/one_thread_conv.h"

#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace dnnl_one_thread {
namespace {

// Values with few significant bits, so that every sum is exact in float
// whatever its order: the reference and oneDNN must then agree exactly.
std::vector<float> Ramp(size_t n, int mod, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i % mod)) - offset;
  return v;
}

size_t InputSize(const ConvShape& s) { return s.batch * s.in_rows * s.in_cols * s.in_depth; }
size_t OutputSize(const ConvShape& s) { return s.batch * s.out_rows * s.out_cols * s.out_depth; }
size_t FilterSize(const ConvShape& s) {
  return s.filter_rows * s.filter_cols * s.in_depth * s.out_depth;
}

// Calls f(b, oy, ox, ky, kx, iy, ix) for every tap that reads an input
// element (padding taps read zeros and are skipped).
template <typename F>
void ForEachTap(const ConvShape& s, F&& f) {
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t oy = 0; oy < s.out_rows; ++oy)
      for (int64_t ox = 0; ox < s.out_cols; ++ox)
        for (int64_t ky = 0; ky < s.filter_rows; ++ky)
          for (int64_t kx = 0; kx < s.filter_cols; ++kx) {
            const int64_t iy = oy * s.stride_rows + ky - s.pad_top;
            const int64_t ix = ox * s.stride_cols + kx - s.pad_left;
            if (iy < 0 || ix < 0 || iy >= s.in_rows || ix >= s.in_cols) continue;
            f(b, oy, ox, ky, kx, iy, ix);
          }
}

std::vector<float> ReferenceForward(const ConvShape& s, const std::vector<float>& in,
                                    const std::vector<float>& filter) {
  std::vector<float> out(OutputSize(s), 0.f);
  ForEachTap(
      s, [&](int64_t b, int64_t oy, int64_t ox, int64_t ky, int64_t kx, int64_t iy, int64_t ix) {
        for (int64_t c = 0; c < s.in_depth; ++c)
          for (int64_t f = 0; f < s.out_depth; ++f)
            out[((b * s.out_rows + oy) * s.out_cols + ox) * s.out_depth + f] +=
                in[((b * s.in_rows + iy) * s.in_cols + ix) * s.in_depth + c] *
                filter[((ky * s.filter_cols + kx) * s.in_depth + c) * s.out_depth + f];
      });
  return out;
}

ConvShape Shape(int64_t batch, int64_t rows, int64_t cols, int64_t depth, int64_t k,
                int64_t out_depth, int64_t stride, bool same) {
  ConvShape s;
  s.batch = batch;
  s.in_rows = rows;
  s.in_cols = cols;
  s.in_depth = depth;
  s.filter_rows = s.filter_cols = k;
  s.out_depth = out_depth;
  s.stride_rows = s.stride_cols = stride;
  if (same) {
    s.out_rows = (rows + stride - 1) / stride;
    s.out_cols = (cols + stride - 1) / stride;
    s.pad_top = std::max<int64_t>(0, ((s.out_rows - 1) * stride + k - rows) / 2);
    s.pad_left = std::max<int64_t>(0, ((s.out_cols - 1) * stride + k - cols) / 2);
  } else {
    s.out_rows = (rows - k) / stride + 1;
    s.out_cols = (cols - k) / stride + 1;
  }
  return s;
}

class OneThreadConvTest : public ::testing::TestWithParam<ConvShape> {};

TEST_P(OneThreadConvTest, ForwardMatchesTheDefinition) {
  const ConvShape s = GetParam();
  const std::vector<float> in = Ramp(InputSize(s), 7, 3), filter = Ramp(FilterSize(s), 5, 2);
  std::vector<float> out(OutputSize(s), -1.f);
  ASSERT_TRUE(ConvForward(s, in.data(), filter.data(), out.data()))
      << "oneDNN refused " << s.batch << "x" << s.in_rows << "x" << s.in_cols << "x" << s.in_depth;
  EXPECT_EQ(out, ReferenceForward(s, in, filter));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, OneThreadConvTest,
    ::testing::Values(Shape(2, 13, 13, 32, 3, 64, 1, false),  // the Keras tutorial's second
                      Shape(3, 28, 28, 1, 3, 32, 1, false),   // and first convolution
                      Shape(2, 9, 7, 3, 3, 5, 2, true),       // SAME, stride 2, odd sizes
                      Shape(1, 5, 5, 4, 1, 6, 1, false),      // 1x1
                      Shape(2, 8, 8, 16, 5, 16, 1, true)));

// A batch's images are convolved one by one: each image's output has the
// bits it has in the whole batch's, so the convolution may be split over
// threads by images without changing a value.
TEST(OneThreadConvForward, ImagesHaveTheirBitsWhateverTheBatch) {
  const ConvShape whole = Shape(8, 13, 13, 32, 3, 64, 1, false);
  std::vector<float> in(InputSize(whole)), filter(FilterSize(whole));
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.37f * static_cast<float>(i));
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = std::cos(0.11f * static_cast<float>(i));
  std::vector<float> out(OutputSize(whole));
  ASSERT_TRUE(ConvForward(whole, in.data(), filter.data(), out.data())) << "the whole batch";
  for (int64_t first : {0, 3, 5}) {
    for (int64_t count : {1, 3}) {
      ConvShape part = whole;
      part.batch = count;
      const size_t in_image = InputSize(whole) / whole.batch;
      const size_t out_image = OutputSize(whole) / whole.batch;
      std::vector<float> part_out(OutputSize(part));
      ASSERT_TRUE(ConvForward(part, in.data() + first * in_image, filter.data(), part_out.data()))
          << "images " << first << ".." << first + count - 1;
      EXPECT_EQ(0, std::memcmp(part_out.data(), out.data() + first * out_image,
                               part_out.size() * sizeof(float)))
          << "images " << first << ".." << first + count - 1;
    }
  }
}

// Threads share a shape's primitives, each call with its own scratchpad:
// calls side by side give what one call alone gives.
TEST(OneThreadConvForward, CallsOnSeveralThreadsAtOnceAgree) {
  const ConvShape s = Shape(4, 13, 13, 32, 3, 64, 1, true);
  std::vector<float> in(InputSize(s)), filter(FilterSize(s));
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.21f * static_cast<float>(i));
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = std::cos(0.13f * static_cast<float>(i));
  std::vector<float> alone(OutputSize(s));
  ASSERT_TRUE(ConvForward(s, in.data(), filter.data(), alone.data())) << "one call alone";
  constexpr int kThreads = 4, kCalls = 20;
  std::vector<std::vector<float>> outs(kThreads, std::vector<float>(OutputSize(s)));
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCalls; ++c) {
        std::fill(outs[t].begin(), outs[t].end(), -1.f);
        if (!ConvForward(s, in.data(), filter.data(), outs[t].data()) || outs[t] != alone) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(OneThreadConv, RefusesWhatItCannotCompute) {
  ConvShape s = Shape(1, 5, 5, 2, 3, 2, 1, false);
  std::vector<float> in(InputSize(s)), filter(FilterSize(s)), out(OutputSize(s));
  EXPECT_FALSE(ConvForward(s, nullptr, filter.data(), out.data()));
  ConvShape negative_padding = s;
  negative_padding.pad_top = -1;
  EXPECT_FALSE(ConvForward(negative_padding, in.data(), filter.data(), out.data()));
  ConvShape short_output = s;
  short_output.in_rows = 7;  // two input rows no window would read
  std::vector<float> taller(InputSize(short_output));
  EXPECT_FALSE(ConvForward(short_output, taller.data(), filter.data(), out.data()));
  for (int64_t huge : {int64_t{1} << 31, int64_t{1} << 62, int64_t{-1}}) {
    ConvShape bad = s;
    bad.out_rows = huge;  // no arithmetic on it may overflow
    EXPECT_FALSE(ConvForward(bad, in.data(), filter.data(), out.data())) << huge;
    bad = s;
    bad.stride_cols = huge;
    EXPECT_FALSE(ConvForward(bad, in.data(), filter.data(), out.data())) << huge;
    bad = s;
    bad.pad_left = huge;
    EXPECT_FALSE(ConvForward(bad, in.data(), filter.data(), out.data())) << huge;
  }
  ConvShape empty = s;
  empty.batch = 0;
  EXPECT_FALSE(ConvForward(empty, in.data(), filter.data(), out.data()));
}

}  // namespace
}  // namespace dnnl_one_thread
