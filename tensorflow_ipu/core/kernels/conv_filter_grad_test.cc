#include "tensorflow_ipu/core/kernels/conv_filter_grad.h"

#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace {

struct Case {
  int64_t batch, rows, cols, in_depth, filter, out_depth, stride;
  window::Padding padding;
};

window::Window2DDims Dims(const Case& c) {
  window::WindowAttrs attrs;
  attrs.op = "Conv2DBackpropFilter";
  attrs.data_format = "NHWC";
  attrs.padding = c.padding;
  attrs.stride_rows = attrs.stride_cols = c.stride;
  absl::StatusOr<window::Window2DDims> d = window::ComputeConv2DDims(
      TensorShape({c.batch, c.rows, c.cols, c.in_depth}),
      TensorShape({c.filter, c.filter, c.in_depth, c.out_depth}), attrs);
  EXPECT_TRUE(d.ok()) << d.status();
  return *d;
}

std::vector<float> Values(int64_t n, int salt) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = float((i * (5 + salt)) % 17) * 0.13f - 1.0f;
  return v;
}

// The filter gradient in double, straight from the definition.
std::vector<double> Reference(const window::Window2DDims& d, const std::vector<float>& x,
                              const std::vector<float>& dy) {
  const int64_t oh = d.rows.output, ow = d.cols.output;
  std::vector<double> g(d.filter_rows * d.filter_cols * d.in_depth * d.out_depth, 0.0);
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t ky = 0; ky < d.filter_rows; ++ky)
          for (int64_t kx = 0; kx < d.filter_cols; ++kx) {
            const int64_t y = oy * d.stride_rows - d.rows.pad_before + ky;
            const int64_t xx = ox * d.stride_cols - d.cols.pad_before + kx;
            if (y < 0 || y >= d.in_rows || xx < 0 || xx >= d.in_cols) continue;
            for (int64_t c = 0; c < d.in_depth; ++c)
              for (int64_t o = 0; o < d.out_depth; ++o) {
                g[((ky * d.filter_cols + kx) * d.in_depth + c) * d.out_depth + o] +=
                    double(x[((b * d.in_rows + y) * d.in_cols + xx) * d.in_depth + c]) *
                    dy[((b * oh + oy) * ow + ox) * d.out_depth + o];
              }
          }
  return g;
}

void Sequential(const std::function<void(int)>& part) {
  part(0);
  part(1);
}

void TwoThreads(const std::function<void(int)>& part) {
  std::thread t([&] { part(1); });
  part(0);
  t.join();
}

// The tutorial's second convolution (many chunks), a strided SAME one, one
// with a single output row (an empty second half) and the first layer's
// single input channel: right values, and the same bits whether the halves
// run one after the other or side by side.
TEST(ConvFilterGradTest, ChunkedGradientIsRightAndKeepsItsBits) {
  for (const Case& c : {Case{64, 13, 13, 32, 3, 64, 1, window::Padding::kValid},
                        Case{3, 9, 8, 5, 3, 16, 2, window::Padding::kSame},
                        Case{1, 3, 7, 4, 3, 32, 1, window::Padding::kValid},
                        Case{8, 28, 28, 1, 3, 32, 1, window::Padding::kValid}}) {
    const window::Window2DDims d = Dims(c);
    const std::vector<float> x = Values(d.batch * d.in_rows * d.in_cols * d.in_depth, 1);
    const std::vector<float> dy =
        Values(d.batch * d.rows.output * d.cols.output * d.out_depth, 2);
    const std::vector<double> want = Reference(d, x, dy);
    std::vector<float> one(want.size(), -7.f), two(want.size(), 7.f);
    ASSERT_TRUE(Conv2DFilterGradByChunks(d, x.data(), dy.data(), one.data(), Sequential))
        << "refused: batch " << c.batch << " in " << c.rows << "x" << c.cols;
    ASSERT_TRUE(Conv2DFilterGradByChunks(d, x.data(), dy.data(), two.data(), TwoThreads))
        << "refused on two threads: batch " << c.batch << " in " << c.rows << "x" << c.cols;
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_NEAR(one[i], want[i], 1e-4 * (1 + std::fabs(want[i])))
          << "batch " << c.batch << " in " << c.rows << "x" << c.cols << "x" << c.in_depth
          << ", element " << i;
    }
    EXPECT_EQ(one, two) << "batch " << c.batch << " in " << c.rows << "x" << c.cols;
  }
}

TEST(ConvFilterGradTest, GroupedConvolutionsAreLeftToTheCaller) {
  window::Window2DDims d = Dims(Case{2, 5, 5, 4, 3, 8, 1, window::Padding::kValid});
  d.filter_depth = 2;  // two groups
  std::vector<float> x(2 * 5 * 5 * 4, 1.f), dy(2 * 3 * 3 * 8, 1.f), g(3 * 3 * 4 * 8);
  EXPECT_FALSE(Conv2DFilterGradByChunks(d, x.data(), dy.data(), g.data(), Sequential));
}

}  // namespace
}  // namespace tensorflow_ipu
