// The CPU executor computes the nodes whose values are the same on every
// run once, when it is built (runtime/constant_folding.h): a gradient's
// seed (OnesLike of the loss, its reshapes and scalings), constants, shapes.
// What a user relies on: the same values as the kernels run one by one (a
// traced run runs every kernel), on every run whatever the fed values.
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/gradients/gradients.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"

namespace tensorflow_ipu {
namespace {

Tensor Matrix(int64_t rows, int64_t cols, float scale) {
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  for (int64_t i = 0; i < rows * cols; ++i) t.data<float>()[i] = scale * float(i % 7) - 1.1f;
  return t;
}

// loss = mean(relu(x w)) with a batch of static shape: the gradient's seed
// folds; the loss and the weight gradient are the kernels', run after run.
TEST(ConstantFoldingTest, FoldedGradientSeedsGiveTheKernelsValues) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape(TensorShape({4, 3})));
  auto w = ops::Const(root.WithOpName("w"), Matrix(3, 5, 0.3f));
  auto loss = ops::Mean(root.WithOpName("loss"),
                        ops::Relu(root, ops::MatMul(root.WithOpName("product"), x, w)), {0, 1});
  std::vector<Output> grads;
  absl::Status s = AddSymbolicGradients(root, {loss}, {w}, &grads);
  ASSERT_TRUE(s.ok()) << s;
  ClientSession session(root);
  for (float scale : {0.5f, -0.25f, 2.f}) {
    const Tensor batch = Matrix(4, 3, scale);
    std::vector<Tensor> folded, traced;
    s = session.Run({{x, batch}}, {loss, grads[0]}, &folded);
    ASSERT_TRUE(s.ok()) << s;
    RunOptions options;
    options.trace_level = RunOptions::FULL_TRACE;
    RunMetadata metadata;
    s = session.Run(options, {{x, batch}}, {loss, grads[0]}, {}, &traced, &metadata);
    ASSERT_TRUE(s.ok()) << s;
    const std::string where = "batch scale " + std::to_string(scale);
    EXPECT_TRUE(folded[0].BitwiseEquals(traced[0]))
        << "loss, " << where << ": " << folded[0].DebugString() << " vs " << traced[0].DebugString();
    EXPECT_TRUE(folded[1].BitwiseEquals(traced[1]))
        << "weight gradient, " << where << ": " << folded[1].DebugString() << " vs "
        << traced[1].DebugString();
  }
}

// Values too large to keep (a OnesLike of a 1024x1024 batch, 4 MB) are
// computed by every run, and are right.
TEST(ConstantFoldingTest, LargeValuesAreComputedByTheRun) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape(TensorShape({1024, 1024})));
  auto twos = ops::Mul(root.WithOpName("twos"), ops::OnesLike(root, x), ops::Const(root, 2.f));
  ClientSession session(root);
  for (int run = 0; run < 2; ++run) {
    std::vector<Tensor> out;
    absl::Status s = session.Run({{x, Matrix(1024, 1024, 1.f)}}, {twos}, &out);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(out[0].NumElements(), 1024 * 1024);
    for (int64_t i = 0; i < out[0].NumElements(); i += 4099) {
      ASSERT_EQ(out[0].data<float>()[i], 2.f) << "element " << i << ", run " << run;
    }
  }
}

}  // namespace
}  // namespace tensorflow_ipu
