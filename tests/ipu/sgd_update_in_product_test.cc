// On the simulated IPU the compiler folds a weight gradient's product into
// the SGD step that consumes it (compiler/matmul_accumulation.h: w -= lr x^T g
// as one product added into w, poplin::matMulAcc), as the CPU executor does
// (tests/sgd_update_in_product_test.cc). What a user relies on: the step's
// values, the same bits for any number of host threads and on both
// backends, reads of the variable fetched in the same run keeping the old
// value, a product of the variable itself, and the generic step when the
// learning rate is fed.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/resource_variable_ops.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"
#include "tests/sgd_step_values.h"

namespace tensorflow_ipu {
namespace {

using SgdUpdateInProductIpuTest = testing::IpuTest;

using namespace sgd_step_values;  // NOLINT: the shared values, in a test

// The layer's variable and step on `device` (an ipu_scope, or the CPU);
// the batch and the output gradient fed from the host. `fed_rate`: the
// learning rate is a placeholder too (the step cannot be folded).
struct Layer {
  Layer(const Scope& root, const Scope& device, bool fed_rate = false)
      : x(ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                           ops::Placeholder::Shape({kBatch, kIn}))),
        g(ops::Placeholder(root.WithDevice("cpu").WithOpName("g"), DT_FLOAT,
                           ops::Placeholder::Shape({kBatch, kOut}))),
        rate(ops::Placeholder(root.WithDevice("cpu").WithOpName("rate"), DT_FLOAT,
                              ops::Placeholder::Shape({}))),
        w(ops::VarHandleOp(device.WithOpName("w"), DT_FLOAT, TensorShape({kIn, kOut}))),
        init(ops::AssignVariableOp(device.WithOpName("init"), w, Filled(kIn, kOut, 3)).operation),
        grad(ops::MatMul(device.WithOpName("grad"), x, g, ops::MatMul::TransposeA(true))),
        step(ops::ResourceApplyGradientDescent(
                 device.WithOpName("step"), w,
                 fed_rate ? Output(rate) : Output(ops::Const(device, kLearningRate)), grad)
                 .operation),
        read(ops::ReadVariableOp(device.WithOpName("read"), w, DT_FLOAT)) {}
  ops::Placeholder x, g, rate;
  ops::VarHandleOp w;
  Operation init;
  ops::MatMul grad;
  Operation step;
  ops::ReadVariableOp read;

  ClientSession::FeedType Batch() const {
    return {{x, Filled(kBatch, kIn, 1)}, {g, Filled(kBatch, kOut, 2)}, {rate, kLearningRate}};
  }
};

// Initialises w, takes one step, returns w.
Tensor OneStep(int threads, bool on_ipu, bool fed_rate = false) {
  Scope root = Scope::NewRootScope();
  Scope device = on_ipu ? ipu::scopes::ipu_scope(root, "/device:IPU:0") : root.WithDevice("cpu");
  Layer layer(root, device, fed_rate);
  SessionOptions options;
  options.num_threads = threads;
  ClientSession session(root, options);
  absl::Status s = session.Run({}, {}, {layer.init}, nullptr);
  EXPECT_TRUE(s.ok()) << s;
  s = session.Run(layer.Batch(), {}, {layer.step}, nullptr);
  EXPECT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session.Run({layer.read}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out.empty() ? Tensor() : out[0];
}

TEST_F(SgdUpdateInProductIpuTest, TheStepHasTheProductsValuesAndTheCpuExecutorsBits) {
  Configure(1);
  const Tensor one = OneStep(1, /*on_ipu=*/true);
  ExpectClose(one, SteppedWeights());
  for (int threads : {2, 3}) {
    EXPECT_TRUE(OneStep(threads, /*on_ipu=*/true).BitwiseEquals(one)) << threads << " threads";
  }
  // Both backends add the product into w by the same oneDNN blocks.
  EXPECT_TRUE(OneStep(2, /*on_ipu=*/false).BitwiseEquals(one));
}

TEST_F(SgdUpdateInProductIpuTest, AFedLearningRateTakesTheGenericStep) {
  Configure(1);
  ExpectClose(OneStep(2, /*on_ipu=*/true, /*fed_rate=*/true), SteppedWeights());
}

TEST_F(SgdUpdateInProductIpuTest, AReadFetchedInTheSameRunKeepsTheOldValue) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Layer layer(root, ipu);
  // A second step that waits for the read, so the read sees the value
  // before it.
  Operation step =
      ops::ResourceApplyGradientDescent(
          ipu.WithOpName("step_after_read").WithControlDependencies({layer.read.operation}),
          layer.w, ops::Const(ipu, kLearningRate), layer.grad)
          .operation;
  ClientSession session(root);
  absl::Status s = session.Run({}, {}, {layer.init}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session.Run(layer.Batch(), {layer.read}, {step}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(out[0].BitwiseEquals(Filled(kIn, kOut, 3))) << "the read changed under the step";
  s = session.Run({layer.read}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ExpectClose(out[0], SteppedWeights());
}

// w -= lr (w m): the product reads the variable it is added to.
TEST_F(SgdUpdateInProductIpuTest, AProductOfTheVariableItselfUsesItsOldValue) {
  Configure(1);
  constexpr int kN = 64;
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto w = ops::VarHandleOp(ipu.WithOpName("w"), DT_FLOAT, TensorShape({kN, kN}));
  Operation init = ops::AssignVariableOp(ipu, w, Filled(kN, kN, 3)).operation;
  auto m = ops::Placeholder(root.WithDevice("cpu").WithOpName("m"), DT_FLOAT,
                            ops::Placeholder::Shape({kN, kN}));
  auto grad = ops::MatMul(ipu, ops::ReadVariableOp(ipu, w, DT_FLOAT), m);
  Operation step =
      ops::ResourceApplyGradientDescent(ipu, w, ops::Const(ipu, kLearningRate), grad).operation;
  auto read = ops::ReadVariableOp(ipu, w, DT_FLOAT);
  ClientSession session(root);
  absl::Status s = session.Run({}, {}, {init}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  const Tensor w0 = Filled(kN, kN, 3), m0 = Filled(kN, kN, 5);
  s = session.Run({{m, m0}}, {}, {step}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session.Run({read}, &out);
  ASSERT_TRUE(s.ok()) << s;
  for (int r = 0; r < kN; ++r) {
    for (int c = 0; c < kN; ++c) {
      double acc = 0;
      for (int k = 0; k < kN; ++k)
        acc += double(w0.data<float>()[r * kN + k]) * m0.data<float>()[k * kN + c];
      const double want = w0.data<float>()[r * kN + c] - kLearningRate * acc;
      ASSERT_NEAR(out[0].data<float>()[r * kN + c], want, 1e-5 * (1 + std::fabs(want)))
          << r << "," << c;
    }
  }
}

}  // namespace
}  // namespace tensorflow_ipu
