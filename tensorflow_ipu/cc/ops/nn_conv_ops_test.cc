// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter through
// ClientSession: hand-computed values on a 3x3 image and a 2x2 filter,
// larger shapes against plain loops in double, bit-identical results for
// any thread count, empty tensors, and the errors of bad shapes and attrs.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/array_ops.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/cc/ops/nn_ops.h"
#include "tensorflow_ipu/cc/ops/ops_test_util.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace {

using test::ExpectInvalid;
using test::ExpectNear;
using test::ExpectTensor;
using test::FetchStatus;
using test::RunOk;
using Strides = std::vector<int64_t>;

// [[1,2,3],[4,5,6],[7,8,9]] and [[1,2],[3,4]] as NHWC / HWIO tensors.
template <typename T>
Tensor Of(const std::vector<double>& v, const TensorShape& shape) {
  std::vector<T> t;
  for (double x : v) t.push_back(static_cast<T>(x));
  return Tensor::FromVector<T>(t, shape);
}
template <typename T>
Tensor Image3x3() {
  return Of<T>({1, 2, 3, 4, 5, 6, 7, 8, 9}, TensorShape({1, 3, 3, 1}));
}
template <typename T>
Tensor Filter2x2() {
  return Of<T>({1, 2, 3, 4}, TensorShape({2, 2, 1, 1}));
}

TEST(Conv2DTest, HandComputedValidAndSame) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Image3x3<float>());
  auto f = ops::Const(root, Filter2x2<float>());
  auto valid1 = ops::Conv2D(root, x, f, {1, 1, 1, 1}, "VALID");
  auto valid2 = ops::Conv2D(root, x, f, {1, 2, 2, 1}, "VALID");
  auto same1 = ops::Conv2D(root, x, f, {1, 1, 1, 1}, "SAME");
  auto same2 = ops::Conv2D(root, x, f, {1, 2, 2, 1}, "SAME");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(same1.output.shape(), TensorShape({1, 3, 3, 1}));
  auto out = RunOk(root, {valid1, valid2, same1, same2});
  ExpectTensor<float>(out[0], {1, 2, 2, 1}, {37, 47, 67, 77});
  ExpectTensor<float>(out[1], {1, 1, 1, 1}, {37});
  // SAME pads one row and column of zeros at the bottom and right.
  ExpectTensor<float>(out[2], {1, 3, 3, 1}, {37, 47, 21, 67, 77, 33, 23, 26, 9});
  ExpectTensor<float>(out[3], {1, 2, 2, 1}, {37, 21, 23, 9});
}

TEST(Conv2DTest, HalfAndDouble) {
  Scope root = Scope::NewRootScope();
  auto h = ops::Conv2D(root, ops::Const(root, Image3x3<half>()),
                       ops::Const(root, Filter2x2<half>()), {1, 1, 1, 1}, "SAME");
  auto d = ops::Conv2D(root, ops::Const(root, Image3x3<double>()),
                       ops::Const(root, Filter2x2<double>()), {1, 2, 2, 1}, "SAME");
  auto out = RunOk(root, {h, d});
  ExpectNear<half>(out[0], {1, 3, 3, 1}, {37, 47, 21, 67, 77, 33, 23, 26, 9}, 0);
  ExpectTensor<double>(out[1], {1, 2, 2, 1}, {37, 21, 23, 9});
}

TEST(Conv2DBackpropTest, HandComputedGradients) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Image3x3<float>());
  auto f = ops::Const(root, Filter2x2<float>());
  auto ones = ops::Const(root, Tensor::FromVector<float>({1, 1, 1, 1}, TensorShape({1, 2, 2, 1})));
  auto dx = ops::Conv2DBackpropInput(root, ops::Const(root, {1, 3, 3, 1}), f, ones,
                                     {1, 1, 1, 1}, "VALID");
  auto df = ops::Conv2DBackpropFilter(root, x, ops::Const(root, {2, 2, 1, 1}), ones,
                                      {1, 1, 1, 1}, "VALID");
  // SAME, stride 2: four windows that do not overlap; the padding drops the
  // taps that fell off the bottom and right.
  auto g = ops::Const(root, Tensor::FromVector<float>({1, 10, 100, 1000},
                                                      TensorShape({1, 2, 2, 1})));
  auto dx2 = ops::Conv2DBackpropInput(root, ops::Const(root, {1, 3, 3, 1}), f, g,
                                      {1, 2, 2, 1}, "SAME");
  auto df2 = ops::Conv2DBackpropFilter(root, x, ops::Const(root, {2, 2, 1, 1}), g,
                                       {1, 2, 2, 1}, "SAME");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(dx.output.shape(), TensorShape({1, 3, 3, 1}));
  EXPECT_EQ(df.output.shape(), TensorShape({2, 2, 1, 1}));
  auto out = RunOk(root, {dx, df, dx2, df2});
  // Each input position gets the filter taps of the windows covering it.
  ExpectTensor<float>(out[0], {1, 3, 3, 1}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
  // Each tap gets the sum of the inputs it saw.
  ExpectTensor<float>(out[1], {2, 2, 1, 1}, {12, 16, 24, 28});
  ExpectTensor<float>(out[2], {1, 3, 3, 1}, {1, 2, 10, 3, 4, 30, 100, 200, 1000});
  // tap (0,0) saw 1, 3, 7, 9; (0,1) 2, pad, 8, pad; (1,0) 4, 6, pad, pad.
  ExpectTensor<float>(out[3], {2, 2, 1, 1},
                      {1 + 30 + 700 + 9000, 2 + 800, 4 + 60, 5});
}

// Plain loops in double: the definitions the kernels must meet.
struct Geometry {
  int64_t n, h, w, c, kh, kw, oc, sr, sc;
  bool same;
  int64_t oh() const { return same ? (h + sr - 1) / sr : (h - kh + sr) / sr; }
  int64_t ow() const { return same ? (w + sc - 1) / sc : (w - kw + sc) / sc; }
  int64_t pad_top() const {
    return same ? std::max<int64_t>((oh() - 1) * sr + kh - h, 0) / 2 : 0;
  }
  int64_t pad_left() const {
    return same ? std::max<int64_t>((ow() - 1) * sc + kw - w, 0) / 2 : 0;
  }
  // Calls fn(input index, filter index, output index) for every tap.
  template <typename Fn>
  void ForEachTap(Fn fn) const {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oy = 0; oy < oh(); ++oy)
        for (int64_t ox = 0; ox < ow(); ++ox)
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t iy = oy * sr - pad_top() + ky, ix = ox * sc - pad_left() + kx;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              for (int64_t ci = 0; ci < c; ++ci)
                for (int64_t o = 0; o < oc; ++o)
                  fn(((b * h + iy) * w + ix) * c + ci, ((ky * kw + kx) * c + ci) * oc + o,
                     ((b * oh() + oy) * ow() + ox) * oc + o);
            }
  }
};

std::vector<float> Pattern(int64_t size, int seed) {
  std::vector<float> v(size);
  for (int64_t i = 0; i < size; ++i) {
    v[i] = static_cast<float>((i * 7 + seed * 13) % 17) * 0.125f - 1.0f;
  }
  return v;
}

void CheckAgainstLoops(const Geometry& g, int num_threads) {
  SCOPED_TRACE(::testing::Message()
               << "n=" << g.n << " h=" << g.h << " w=" << g.w << " c=" << g.c << " k=" << g.kh
               << "x" << g.kw << " oc=" << g.oc << " strides=" << g.sr << "," << g.sc
               << (g.same ? " SAME" : " VALID") << " threads=" << num_threads);
  const std::vector<float> x = Pattern(g.n * g.h * g.w * g.c, 1);
  const std::vector<float> f = Pattern(g.kh * g.kw * g.c * g.oc, 2);
  const std::vector<float> dy = Pattern(g.n * g.oh() * g.ow() * g.oc, 3);
  std::vector<double> y(dy.size()), dx(x.size()), df(f.size());
  g.ForEachTap([&](int64_t i, int64_t k, int64_t o) {
    y[o] += double{x[i]} * f[k];
    dx[i] += double{dy[o]} * f[k];
    df[k] += double{x[i]} * dy[o];
  });
  Scope root = Scope::NewRootScope();
  const TensorShape xs({g.n, g.h, g.w, g.c}), fs({g.kh, g.kw, g.c, g.oc}),
      ys({g.n, g.oh(), g.ow(), g.oc});
  auto xt = ops::Const(root, Tensor::FromVector(x, xs));
  auto ft = ops::Const(root, Tensor::FromVector(f, fs));
  auto dyt = ops::Const(root, Tensor::FromVector(dy, ys));
  const Strides strides = {1, g.sr, g.sc, 1};
  const char* padding = g.same ? "SAME" : "VALID";
  auto conv = ops::Conv2D(root, xt, ft, strides, padding);
  auto bin = ops::Conv2DBackpropInput(root, ops::Shape(root, xt), ft, dyt, strides, padding);
  auto bfi = ops::Conv2DBackpropFilter(root, xt, ops::Shape(root, ft), dyt, strides, padding);
  ASSERT_TRUE(root.ok()) << root.status();
  SessionOptions options;
  options.num_threads = num_threads;
  ClientSession session(root, options);
  std::vector<Tensor> out;
  TF_ASSERT_OK(session.Run({conv, bin, bfi}, &out));
  ExpectNear<float>(out[0], ys, y, 1e-3);
  ExpectNear<float>(out[1], xs, dx, 1e-3);
  ExpectNear<float>(out[2], fs, df, 1e-3);
}

TEST(Conv2DTest, ShapesAgainstPlainLoops) {
  const std::vector<Geometry> cases = {
      {2, 5, 6, 3, 3, 2, 4, 1, 1, false}, {2, 5, 6, 3, 3, 2, 4, 2, 3, true},
      {1, 7, 7, 2, 3, 3, 5, 2, 2, true},  {3, 4, 4, 5, 1, 1, 3, 1, 1, true},  // pointwise
      {2, 6, 5, 2, 1, 1, 3, 2, 2, false},  // 1x1 with stride: im2col
      {1, 4, 4, 1, 4, 4, 2, 1, 1, false},  // the filter covers the image
      {1, 3, 3, 1, 5, 5, 1, 1, 1, true},   // filter larger than the image
      {2, 28, 28, 1, 3, 3, 8, 1, 1, false},  // the tutorial's first layer
  };
  for (const Geometry& g : cases) CheckAgainstLoops(g, 2);
}

// One image whose patches do not fit one chunk of col: built and summed
// back a range of its rows at a time.
TEST(Conv2DTest, LargeImageInSeveralChunks) {
  CheckAgainstLoops({1, 600, 600, 8, 3, 3, 2, 1, 1, true}, 2);
}

// Large enough to be built in several chunks (which end inside an image)
// and split over threads: the same values as the loops, and the same bits
// for any number of threads.
TEST(Conv2DTest, LargeBatchBitIdenticalForAnyThreadCount) {
  const Geometry g = {32, 48, 48, 16, 3, 3, 8, 1, 1, true};
  CheckAgainstLoops(g, 4);
  std::vector<std::vector<Tensor>> results;
  for (int threads : {1, 2, 4}) {
    Scope root = Scope::NewRootScope();
    const TensorShape xs({g.n, g.h, g.w, g.c}), fs({g.kh, g.kw, g.c, g.oc});
    auto xt = ops::Const(root, Tensor::FromVector(Pattern(xs.num_elements(), 4), xs));
    auto ft = ops::Const(root, Tensor::FromVector(Pattern(fs.num_elements(), 5), fs));
    auto conv = ops::Conv2D(root, xt, ft, {1, 1, 1, 1}, "SAME");
    auto dx = ops::Conv2DBackpropInput(root, ops::Shape(root, xt), ft, conv, {1, 1, 1, 1},
                                       "SAME");
    auto df = ops::Conv2DBackpropFilter(root, xt, ops::Shape(root, ft), conv, {1, 1, 1, 1},
                                        "SAME");
    ASSERT_TRUE(root.ok()) << root.status();
    SessionOptions options;
    options.num_threads = threads;
    ClientSession session(root, options);
    std::vector<Tensor> out;
    TF_ASSERT_OK(session.Run({conv, dx, df}, &out));
    results.push_back(out);
  }
  for (size_t r = 1; r < results.size(); ++r) {
    for (int k = 0; k < 3; ++k) {
      const Tensor& a = results[0][k];
      const Tensor& b = results[r][k];
      ASSERT_EQ(a.shape(), b.shape());
      EXPECT_EQ(0, std::memcmp(a.data<float>(), b.data<float>(), a.NumElements() * 4))
          << "output " << k << " differs between 1 thread and run " << r;
    }
  }
}

TEST(Conv2DTest, EmptyTensors) {
  Scope root = Scope::NewRootScope();
  auto no_images = ops::Conv2D(root, Tensor(DT_FLOAT, TensorShape({0, 3, 3, 1})),
                               ops::Const(root, Filter2x2<float>()), {1, 1, 1, 1}, "VALID");
  auto no_filters = ops::Conv2D(root, ops::Const(root, Image3x3<float>()),
                                Tensor(DT_FLOAT, TensorShape({2, 2, 1, 0})), {1, 1, 1, 1},
                                "SAME");
  // The window is 3 wide and the input 2: no output, as TensorFlow.
  auto too_short = ops::Conv2D(root, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})),
                               Tensor(DT_FLOAT, TensorShape({3, 3, 1, 1})), {1, 2, 2, 1},
                               "VALID");
  auto df = ops::Conv2DBackpropFilter(root, Tensor(DT_FLOAT, TensorShape({0, 3, 3, 1})),
                                      ops::Const(root, {2, 2, 1, 1}),
                                      Tensor(DT_FLOAT, TensorShape({0, 2, 2, 1})),
                                      {1, 1, 1, 1}, "VALID");
  auto dx = ops::Conv2DBackpropInput(root, ops::Const(root, {0, 3, 3, 1}),
                                     ops::Const(root, Filter2x2<float>()),
                                     Tensor(DT_FLOAT, TensorShape({0, 2, 2, 1})),
                                     {1, 1, 1, 1}, "VALID");
  auto out = RunOk(root, {no_images, no_filters, too_short, df, dx});
  ExpectTensor<float>(out[0], {0, 2, 2, 1}, {});
  ExpectTensor<float>(out[1], {1, 3, 3, 0}, {});
  ExpectTensor<float>(out[2], {1, 0, 0, 1}, {});
  ExpectTensor<float>(out[3], {2, 2, 1, 1}, {0, 0, 0, 0});
  ExpectTensor<float>(out[4], {0, 3, 3, 1}, {});
}

// Errors found while building the graph name the op, the node and both
// shapes.
TEST(Conv2DErrorsTest, BadShapesAtGraphBuilding) {
  struct Case {
    TensorShape input, filter;
    Strides strides;
    std::string padding;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {{1, 3, 3, 3}, {2, 2, 2, 1}, {1, 1, 1, 1}, "VALID",
       {"Depth of input (3) is not a multiple of input depth of filter (2)", "[1,3,3,3]",
        "[2,2,2,1]", "op: 'Conv2D'"}},
      {{3, 3, 1}, {2, 2, 1, 1}, {1, 1, 1, 1}, "VALID",
       {"input must be 4-dimensional", "[3,3,1]", "[2,2,1,1]"}},
      {{1, 3, 3, 1}, {2, 2, 1}, {1, 1, 1, 1}, "VALID",
       {"filter must be 4-dimensional", "[2,2,1]", "[1,3,3,1]"}},
      {{1, 2, 2, 1}, {4, 4, 1, 1}, {1, 1, 1, 1}, "VALID",
       {"Computed output size would be negative", "[1,2,2,1]", "[4,4,1,1]"}},
      {{1, 3, 3, 1}, {2, 2, 1, 1}, {1, 1, 1}, "VALID",
       {"Conv2D requires the stride attribute to contain 4 values, but got: 3"}},
      {{1, 3, 3, 1}, {2, 2, 1, 1}, {1, 0, 1, 1}, "VALID", {"stride must be > 0, but got 0"}},
      {{1, 3, 3, 1}, {2, 2, 1, 1}, {1, -2, 1, 1}, "VALID", {"stride must be > 0, but got -2"}},
      {{1, 3, 3, 1}, {2, 2, 1, 1}, {2, 1, 1, 1}, "VALID", {"strides in the batch and depth"}},
      {{1, 3, 3, 1}, {2, 2, 1, 1}, {1, 1, 1, 1}, "FULL",
       {"attr 'padding' of \"FULL\" is not in the list of allowed values"}},
      {{1, 3, 3, 1}, {0, 2, 1, 1}, {1, 1, 1, 1}, "SAME", {"at least 1 wide, but is 0"}},
  };
  for (const Case& c : cases) {
    Scope root = Scope::NewRootScope();
    ops::Conv2D(root.WithOpName("conv"), Tensor(DT_FLOAT, c.input), Tensor(DT_FLOAT, c.filter),
                c.strides, c.padding);
    ExpectInvalid(root.status(), c.parts);
  }
  Scope root = Scope::NewRootScope();
  ops::Conv2D(root, Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})),
              Tensor(DT_FLOAT, TensorShape({2, 2, 1, 1})), {1, 1, 1, 1}, "EXPLICIT");
  EXPECT_EQ(root.status().code(), absl::StatusCode::kUnimplemented) << root.status();
  Scope ints = Scope::NewRootScope();
  ops::Conv2D(ints, Tensor(DT_INT32, TensorShape({1, 3, 3, 1})),
              Tensor(DT_INT32, TensorShape({2, 2, 1, 1})), {1, 1, 1, 1}, "VALID");
  EXPECT_FALSE(ints.ok()) << "int32 is not an allowed type of Conv2D";
}

TEST(Conv2DErrorsTest, BackpropShapesAtGraphBuilding) {
  Scope root = Scope::NewRootScope();
  ops::Conv2DBackpropInput(root, ops::Const(root, {1, 5, 5, 1}),
                           Tensor(DT_FLOAT, TensorShape({2, 2, 1, 1})),
                           Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})), {1, 1, 1, 1}, "VALID");
  ExpectInvalid(root.status(), {"Size of out_backprop doesn't match computed", "[1,3,3,1]",
                                "[1,5,5,1]", "[2,2,1,1]", "[1,4,4,1]"});
  Scope neg = Scope::NewRootScope();
  ops::Conv2DBackpropInput(neg, ops::Const(neg, {1, -5, 5, 1}),
                           Tensor(DT_FLOAT, TensorShape({2, 2, 1, 1})),
                           Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})), {1, 1, 1, 1}, "VALID");
  ExpectInvalid(neg.status(), {"input_sizes must not be negative", "[1,-5,5,1]"});
  Scope three = Scope::NewRootScope();
  ops::Conv2DBackpropFilter(three, Tensor(DT_FLOAT, TensorShape({1, 5, 5, 1})),
                            ops::Const(three, {2, 2, 1}),
                            Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})), {1, 1, 1, 1}, "VALID");
  ExpectInvalid(three.status(), {"filter_sizes must be an int32 vector of 4 values", "[3]"});
}

// Shapes only known when the graph runs are checked by the kernels, which
// name the node.
TEST(Conv2DErrorsTest, BadShapesAtRunTime) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto f = ops::Placeholder(root.WithOpName("f"), DT_FLOAT);
  auto sizes = ops::Placeholder(root.WithOpName("sizes"), DT_INT32);
  auto conv = ops::Conv2D(root.WithOpName("conv"), x, f, {1, 1, 1, 1}, "VALID");
  auto dx = ops::Conv2DBackpropInput(root.WithOpName("dx"), sizes, f, x, {1, 1, 1, 1}, "VALID");
  ASSERT_TRUE(root.ok()) << root.status();
  ExpectInvalid(FetchStatus(root, conv,
                            {{x, Tensor(DT_FLOAT, TensorShape({1, 3, 3, 3}))},
                             {f, Tensor(DT_FLOAT, TensorShape({2, 2, 2, 1}))}}),
                {"Depth of input (3) is not a multiple of input depth of filter (2)",
                 "node 'conv'"});
  ExpectInvalid(FetchStatus(root, conv,
                            {{x, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))},
                             {f, Tensor(DT_FLOAT, TensorShape({4, 4, 1, 1}))}}),
                {"Computed output size would be negative", "node 'conv'"});
  ExpectInvalid(FetchStatus(root, dx,
                            {{sizes, Tensor::Vector<int32_t>({1, -3, 3, 1})},
                             {f, Tensor(DT_FLOAT, TensorShape({2, 2, 1, 1}))},
                             {x, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))}}),
                {"input_sizes must not be negative", "node 'dx'"});
  ExpectInvalid(FetchStatus(root, dx,
                            {{sizes, Tensor::Vector<int32_t>({1, 5, 5, 1})},
                             {f, Tensor(DT_FLOAT, TensorShape({2, 2, 1, 1}))},
                             {x, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))}}),
                {"Size of out_backprop doesn't match computed", "node 'dx'"});
  // Grouped convolutions pass the shape checks but have no CPU kernel.
  absl::Status grouped = FetchStatus(root, conv,
                                     {{x, Tensor(DT_FLOAT, TensorShape({1, 3, 3, 4}))},
                                      {f, Tensor(DT_FLOAT, TensorShape({2, 2, 2, 2}))}});
  EXPECT_EQ(grouped.code(), absl::StatusCode::kUnimplemented) << grouped;
  EXPECT_NE(grouped.message().find("grouped"), absl::string_view::npos) << grouped;
}

// NCHW and dilations build graphs (with TensorFlow's shapes) but have no
// CPU kernel: running them is Unimplemented, naming the attr and value.
TEST(Conv2DErrorsTest, NchwAndDilationsAreUnimplementedOnTheCpu) {
  Scope root = Scope::NewRootScope();
  auto nchw = ops::Conv2D(root, Tensor(DT_FLOAT, TensorShape({1, 2, 5, 5})),
                          Tensor(DT_FLOAT, TensorShape({3, 3, 2, 4})), {1, 1, 1, 1}, "VALID",
                          ops::Conv2D::DataFormat("NCHW"));
  auto dilated = ops::Conv2D(root, Tensor(DT_FLOAT, TensorShape({1, 5, 5, 1})),
                             Tensor(DT_FLOAT, TensorShape({2, 2, 1, 1})), {1, 1, 1, 1},
                             "VALID", ops::Conv2D::Dilations({1, 2, 2, 1}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(nchw.output.shape(), TensorShape({1, 4, 3, 3}));
  EXPECT_EQ(dilated.output.shape(), TensorShape({1, 3, 3, 1}));
  absl::Status s = FetchStatus(root, nchw);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("data_format \"NCHW\""), absl::string_view::npos) << s;
  s = FetchStatus(root, dilated);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("dilations [1,2,2,1]"), absl::string_view::npos) << s;
}

}  // namespace
}  // namespace tensorflow_ipu
