// A small CNN's loss and gradients (Conv2D -> Relu -> MaxPool -> MatMul ->
// sparse softmax cross-entropy, the tutorial's layers) computed on the
// simulated IPU match the CPU's, and the convolution ops' attrs the IPU
// does not implement fail the run with Unimplemented naming them.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/gradients/gradients.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

class CnnGradientsTest : public testing::IpuTest {};

Tensor Values(const TensorShape& shape, int seed) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = static_cast<float>(std::sin(0.7 * i + seed));
  }
  return t;
}

// loss, d(loss)/d(filter), d(loss)/d(weights) and d(loss)/d(images), with
// the model on the IPU or on the host.
std::vector<Tensor> RunModel(bool on_ipu) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("cpu");
  auto images = ops::Placeholder(cpu.WithOpName("images"), DT_FLOAT,
                                 ops::Placeholder::Shape({4, 9, 9, 2}));
  auto labels = ops::Placeholder(cpu.WithOpName("labels"), DT_INT32,
                                 ops::Placeholder::Shape({4}));
  auto filter = ops::Placeholder(cpu.WithOpName("filter"), DT_FLOAT,
                                 ops::Placeholder::Shape({3, 3, 2, 4}));
  auto weights = ops::Placeholder(cpu.WithOpName("weights"), DT_FLOAT,
                                  ops::Placeholder::Shape({64, 5}));
  Scope s = on_ipu ? ipu::scopes::ipu_scope(root, "/device:IPU:0") : root;
  auto conv = ops::Relu(s, ops::Conv2D(s, images, filter, {1, 1, 1, 1}, "SAME"));
  auto pool = ops::MaxPool(s, conv, {1, 3, 3, 1}, {1, 2, 2, 1}, "VALID");  // [4,4,4,4]
  auto logits = ops::MatMul(s, ops::Reshape(s, pool, {4, 64}), weights);
  ops::SparseSoftmaxCrossEntropyWithLogits xent(s, logits, labels);
  auto loss = ops::Mean(s, xent.loss, {0});
  std::vector<Output> grads;
  absl::Status status = AddSymbolicGradients(s, {loss}, {filter, weights, images}, &grads);
  EXPECT_TRUE(status.ok()) << status;
  if (!status.ok()) return {};
  ClientSession session(root);
  std::vector<Tensor> out;
  RunMetadata metadata;
  status = session.Run(RunOptions(),
                       {{images, Values({4, 9, 9, 2}, 1)},
                        {labels, Tensor::Vector<int32_t>({0, 3, 1, 4})},
                        {filter, Values({3, 3, 2, 4}, 2)},
                        {weights, Values({64, 5}, 3)}},
                       {loss, grads[0], grads[1], grads[2]}, {}, &out, &metadata);
  EXPECT_TRUE(status.ok()) << status;
  // The whole model and its gradients are one IPU program.
  EXPECT_EQ(metadata.ipu_profile.clusters.size(), on_ipu ? 1u : 0u);
  return out;
}

TEST_F(CnnGradientsTest, IpuMatchesCpu) {
  const std::vector<Tensor> cpu = RunModel(false);
  Configure(1, "--use_ipu_model --ipu_model_tiles=8");
  const std::vector<Tensor> ipu = RunModel(true);
  ASSERT_EQ(cpu.size(), 4u);
  ASSERT_EQ(ipu.size(), 4u);
  for (size_t k = 0; k < cpu.size(); ++k) {
    ASSERT_EQ(cpu[k].shape(), ipu[k].shape()) << "output " << k;
    double worst = 0, largest = 0;
    for (int64_t i = 0; i < cpu[k].NumElements(); ++i) {
      const double x = cpu[k].data<float>()[i], y = ipu[k].data<float>()[i];
      worst = std::max(worst, std::abs(x - y) / (1.0 + std::abs(x)));
      largest = std::max(largest, std::abs(x));
    }
    EXPECT_LT(worst, 1e-5) << "output " << k;
    EXPECT_GT(largest, 1e-4) << "output " << k << " is all zeros: the test checks nothing";
  }
}

TEST_F(CnnGradientsTest, NchwIsUnimplementedOnTheIpu) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({1, 2, 5, 5}));
  Scope s = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto y = ops::Conv2D(s.WithOpName("conv"), x, Values({3, 3, 2, 4}, 4), {1, 1, 1, 1}, "VALID",
                       ops::Conv2D::DataFormat("NCHW"));
  ASSERT_TRUE(root.ok()) << root.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status status = session.Run({{x, Values({1, 2, 5, 5}, 5)}}, {y}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
  EXPECT_NE(status.message().find("NCHW"), absl::string_view::npos) << status;
  EXPECT_NE(status.message().find("conv"), absl::string_view::npos) << status;
}

// No image, or no output position: the ops give empty outputs, or zero
// gradients, on the IPU as on the host.
TEST_F(CnnGradientsTest, EmptyWindowsOnTheIpu) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("cpu");
  auto images = ops::Placeholder(cpu.WithOpName("images"), DT_FLOAT,
                                 ops::Placeholder::Shape({0, 5, 5, 1}));
  auto dy = ops::Placeholder(cpu.WithOpName("dy"), DT_FLOAT,
                             ops::Placeholder::Shape({1, 0, 0, 2}));
  auto batch = ops::Placeholder(cpu.WithOpName("batch"), DT_FLOAT,
                                ops::Placeholder::Shape({0, 4, 4, 3}));
  Scope s = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  const Tensor filter = Values({3, 3, 1, 2}, 6);
  auto no_images = ops::Conv2D(s, images, filter, {1, 1, 1, 1}, "VALID");
  // A 2x2 input under a 3x3 window with stride 2: no output position.
  auto no_windows = ops::Conv2DBackpropInput(s, ops::Const(s, {1, 2, 2, 1}), filter, dy,
                                             {1, 2, 2, 1}, "VALID");
  auto pool = ops::MaxPool(s, batch, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  ASSERT_TRUE(root.ok()) << root.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  RunMetadata metadata;
  absl::Status status = session.Run(
      RunOptions(),
      {{images, Tensor(DT_FLOAT, TensorShape({0, 5, 5, 1}))},
       {dy, Tensor(DT_FLOAT, TensorShape({1, 0, 0, 2}))},
       {batch, Tensor(DT_FLOAT, TensorShape({0, 4, 4, 3}))}},
      {no_images, no_windows, pool}, {}, &out, &metadata);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(metadata.ipu_profile.clusters.size(), 1u);
  EXPECT_EQ(out[0].shape(), TensorShape({0, 3, 3, 2}));
  ASSERT_EQ(out[1].shape(), TensorShape({1, 2, 2, 1}));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[1].data<float>()[i], 0.f);
  EXPECT_EQ(out[2].shape(), TensorShape({0, 2, 2, 3}));
}

// The lowerings unroll windows tap by tap; a window too large for that is
// Unimplemented on the IPU (the CPU kernel runs it).
TEST_F(CnnGradientsTest, HugeWindowIsUnimplementedOnTheIpu) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({1, 3, 3, 1}));
  Scope s = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  const int64_t huge = int64_t{1} << 30;
  auto pool = ops::MaxPool(s.WithOpName("pool"), x, {1, huge, huge, 1}, {1, 1, 1, 1}, "SAME");
  ASSERT_TRUE(root.ok()) << root.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status status = session.Run({{x, Values({1, 3, 3, 1}, 7)}}, {pool}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
  EXPECT_NE(status.message().find("taps"), absl::string_view::npos) << status;
}

}  // namespace
}  // namespace tensorflow_ipu
