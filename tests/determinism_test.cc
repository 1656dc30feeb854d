// The same program, data and seeds give bit-identical results across runs
// and thread-pool sizes, on the CPU executor and on the simulated IPU: an MLP
// with seeded initializers trained for a few steps with Adam.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/resource_variable_ops.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/adam.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using testing::IpuTest;
using DeterminismTest = IpuTest;

// Batch, input width and hidden width of the MLP.
struct Sizes {
  int batch = 16, in = 64, hidden = 32;
};
// Large enough that the first layer's products (about 4.4M multiply-adds,
// forward and gradient) are split over the threads, at widths that leave
// partial register blocks.
constexpr Sizes kLarge = {48, 700, 130};

// Trains 5 steps; returns every variable's final value and the losses.
std::vector<Tensor> Train(bool on_ipu, int threads, Sizes sz = Sizes()) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("cpu");
  Scope s = on_ipu ? ipu::scopes::ipu_scope(root, "/device:IPU:0") : root;
  auto x = ops::Placeholder(cpu.WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({sz.batch, sz.in}));
  auto y = ops::Placeholder(cpu.WithOpName("y"), DT_INT32,
                            ops::Placeholder::Shape({sz.batch}));
  VariableScope vs(s, "mlp");
  Variable w1 = *vs.get_variable("w1", {sz.in, sz.hidden}, DT_FLOAT, initializers::GlorotUniform(1));
  Variable b1 = *vs.get_variable("b1", {sz.hidden}, DT_FLOAT, initializers::Zeros());
  Variable w2 = *vs.get_variable("w2", {sz.hidden, 10}, DT_FLOAT, initializers::GlorotUniform(2));
  auto h = ops::Relu(s, ops::BiasAdd(s, ops::MatMul(s, x, w1.value(s)), b1.value(s)));
  auto logits = ops::MatMul(s, h, w2.value(s));
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y);
  Output loss = ops::Mean(s, xent.loss, {0});
  train::AdamOptimizer opt(0.01);
  absl::StatusOr<Operation> step = opt.minimize(s, loss);
  EXPECT_TRUE(step.ok()) << step.status();
  Operation init = global_variables_initializer(root);
  EXPECT_TRUE(root.ok()) << root.status();

  Tensor xs(DT_FLOAT, TensorShape({sz.batch, sz.in})), ys(DT_INT32, TensorShape({sz.batch}));
  // Inputs in [0, 64 / in): wider inputs are scaled down so that training
  // still converges.
  const float scale = 64.f / sz.in;
  for (int i = 0; i < sz.batch * sz.in; ++i) {
    xs.data<float>()[i] = ((i * 37) % 101) / 101.f * scale;
  }
  for (int i = 0; i < sz.batch; ++i) ys.data<int32_t>()[i] = (i * 7) % 10;

  SessionOptions options;
  options.num_threads = threads;
  ClientSession session(root, options);
  {
    absl::Status status = session.Run({}, {}, {init}, nullptr);
    EXPECT_TRUE(status.ok()) << status;
  }
  std::vector<Tensor> result;
  for (int i = 0; i < 5; ++i) {
    std::vector<Tensor> out;
    absl::Status st = session.Run({{x, xs}, {y, ys}}, {loss}, {*step}, &out);
    EXPECT_TRUE(st.ok()) << st;
    if (st.ok()) result.push_back(out[0]);
  }
  std::vector<Tensor> vars;
  {
    absl::Status status = session.Run({w1.value(root), b1.value(root), w2.value(root)}, &vars);
    EXPECT_TRUE(status.ok()) << status;
  }
  result.insert(result.end(), vars.begin(), vars.end());
  return result;
}

void ExpectBitIdentical(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i].BitwiseEquals(b[i])) << "result " << i << ": "
                                          << a[i].DebugString() << " vs "
                                          << b[i].DebugString();
  }
}

TEST_F(DeterminismTest, CpuRunsAreBitIdenticalAcrossRunsAndThreadCounts) {
  std::vector<Tensor> one = Train(false, 1);
  ExpectBitIdentical(one, Train(false, 1));
  ExpectBitIdentical(one, Train(false, 4));
  // Training did something: the loss fell.
  EXPECT_LT(one[4].data<float>()[0], one[0].data<float>()[0]);
}

TEST_F(DeterminismTest, IpuRunsAreBitIdenticalAcrossRunsAndThreadCounts) {
  Configure(1);
  std::vector<Tensor> one = Train(true, 1);
  ExpectBitIdentical(one, Train(true, 1));
  ExpectBitIdentical(one, Train(true, 4));
  EXPECT_LT(one[4].data<float>()[0], one[0].data<float>()[0]);
}

// Elementwise ops on tensors large enough to be split over the threads
// (from 256K elements) give every element, whatever the thread count.
TEST_F(DeterminismTest, LargeElementwiseOpsSplitOverThreadsAreExact) {
  constexpr int kSize = 600001;  // not a multiple of the pieces' alignment
  Tensor xs(DT_FLOAT, TensorShape({kSize}));
  for (int i = 0; i < kSize; ++i) xs.data<float>()[i] = static_cast<float>(i % 1000) - 500;
  for (int threads : {1, 2, 3}) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({kSize}));
    auto y = ops::Add(root, ops::Mul(root, x, 2.f), ops::Neg(root, x));  // = x
    auto z = ops::Sub(root, ops::Mul(root, x, x), 1.f);
    SessionOptions options;
    options.num_threads = threads;
    ClientSession session(root, options);
    std::vector<Tensor> out;
    {
      absl::Status status = session.Run({{x, xs}}, {y, z}, &out);
      ASSERT_TRUE(status.ok()) << status;
    }
    for (int i = 0; i < kSize; ++i) {
      const float v = xs.data<float>()[i];
      ASSERT_EQ(out[0].data<float>()[i], v) << "threads=" << threads << " i=" << i;
      ASSERT_EQ(out[1].data<float>()[i], v * v - 1) << "threads=" << threads << " i=" << i;
    }
  }
}

TEST_F(DeterminismTest, LargeProductsSplitOverThreadsAreBitIdentical) {
  std::vector<Tensor> cpu = Train(false, 1, kLarge);
  ExpectBitIdentical(cpu, Train(false, 2, kLarge));
  ExpectBitIdentical(cpu, Train(false, 3, kLarge));
  Configure(1);
  std::vector<Tensor> ipu = Train(true, 1, kLarge);
  ExpectBitIdentical(ipu, Train(true, 2, kLarge));
  ExpectBitIdentical(ipu, Train(true, 3, kLarge));
  EXPECT_LT(cpu[4].data<float>()[0], cpu[0].data<float>()[0]);
}

// A gradient-descent update of a 300x256 variable (split over the threads
// by rows from 64K elements) on `threads` threads: the variable's initial
// value and its value after three updates by `delta` at rate 0.37.
std::vector<Tensor> DescendThreeTimes(int threads, const Tensor& delta_value) {
  Scope root = Scope::NewRootScope();
  VariableScope vs(root, "sgd");
  Variable w = *vs.get_variable("w", {300, 256}, DT_FLOAT, initializers::GlorotUniform(3));
  auto delta = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({300, 256}));
  auto step = ops::ResourceApplyGradientDescent(root, w.handle(), ops::Const(root, 0.37f), delta);
  Operation init = global_variables_initializer(root);
  SessionOptions options;
  options.num_threads = threads;
  ClientSession session(root, options);
  std::vector<Tensor> result, out;
  absl::Status status = session.Run({}, {}, {init}, nullptr);
  EXPECT_TRUE(status.ok()) << status;
  status = session.Run({w.value(root)}, &out);
  EXPECT_TRUE(status.ok()) << status;
  if (!out.empty()) result.push_back(out[0]);
  for (int i = 0; i < 3; ++i) {
    status = session.Run({{delta, delta_value}}, {}, {step.operation}, &out);
    EXPECT_TRUE(status.ok()) << status;
  }
  status = session.Run({w.value(root)}, &out);
  EXPECT_TRUE(status.ok()) << status;
  if (!out.empty()) result.push_back(out[0]);
  return result;
}

TEST_F(DeterminismTest, LargeGradientDescentUpdatesSplitOverThreadsAreBitIdentical) {
  Tensor delta(DT_FLOAT, TensorShape({300, 256}));
  for (int64_t i = 0; i < delta.NumElements(); ++i) delta.data<float>()[i] = std::sin(0.01f * i);
  const std::vector<Tensor> one = DescendThreeTimes(1, delta);
  ASSERT_EQ(one.size(), 2u);
  for (int threads : {2, 3}) {
    const std::vector<Tensor> more = DescendThreeTimes(threads, delta);
    ASSERT_EQ(more.size(), 2u);
    EXPECT_TRUE(one[1].BitwiseEquals(more[1])) << "threads=" << threads << ": "
                                               << one[1].DebugString() << " vs "
                                               << more[1].DebugString();
  }
  // Each element moved by three steps: w0 - 3 * 0.37 * delta (to float error).
  for (int64_t i : {int64_t{0}, int64_t{12345}, int64_t{300 * 256 - 1}}) {
    EXPECT_NEAR(one[1].data<float>()[i],
                one[0].data<float>()[i] - 3 * 0.37f * delta.data<float>()[i], 1e-5)
        << "element " << i;
  }
}

// A Conv2D of 6 images (3x3, SAME, 8 -> 16 channels) and its filter
// gradient, on `threads` threads.
std::vector<Tensor> Convolve(bool on_ipu, int threads) {
  Scope root = Scope::NewRootScope();
  Scope s = on_ipu ? ipu::scopes::ipu_scope(root, "/device:IPU:0") : root;
  Tensor xs(DT_FLOAT, TensorShape({6, 9, 11, 8})), fs(DT_FLOAT, TensorShape({3, 3, 8, 16}));
  for (int64_t i = 0; i < xs.NumElements(); ++i) xs.data<float>()[i] = std::sin(0.3f * i);
  for (int64_t i = 0; i < fs.NumElements(); ++i) fs.data<float>()[i] = std::cos(0.7f * i);
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({6, 9, 11, 8}));
  auto filter = ops::Const(s, fs);
  auto y = ops::Conv2D(s, x, filter, {1, 1, 1, 1}, "SAME");
  auto sizes = ops::Const(s, Tensor::Vector<int32_t>({3, 3, 8, 16}));
  auto filter_grad =
      ops::Conv2DBackpropFilter(s, x, sizes, ops::Mul(s, y, y), {1, 1, 1, 1}, "SAME");
  SessionOptions options;
  options.num_threads = threads;
  ClientSession session(root, options);
  std::vector<Tensor> out;
  absl::Status status = session.Run({{x, xs}}, {y, filter_grad}, &out);
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

// The convolutions split their images over the threads (oneDNN's direct
// kernels, one image range per thread): neither backend's bits depend on
// the thread count, and both compute Conv2D and its filter gradient the
// same way.
TEST_F(DeterminismTest, ConvolutionsAreBitIdenticalAcrossThreadCountsAndBackends) {
  std::vector<Tensor> cpu = Convolve(false, 1);
  ASSERT_EQ(cpu.size(), 2u);
  ExpectBitIdentical(cpu, Convolve(false, 2));
  ExpectBitIdentical(cpu, Convolve(false, 3));
  Configure(1);
  std::vector<Tensor> ipu = Convolve(true, 1);
  ASSERT_EQ(ipu.size(), 2u);
  ExpectBitIdentical(ipu, Convolve(true, 2));
  ExpectBitIdentical(ipu, Convolve(true, 3));
  EXPECT_TRUE(cpu[0].BitwiseEquals(ipu[0])) << cpu[0].DebugString() << " vs "
                                            << ipu[0].DebugString();
  // The filter gradient too: both sum it by the same chunks of im2col rows
  // (core/kernels/conv_filter_grad.h).
  EXPECT_TRUE(cpu[1].BitwiseEquals(ipu[1])) << cpu[1].DebugString() << " vs "
                                            << ipu[1].DebugString();
}

}  // namespace
}  // namespace tensorflow_ipu
