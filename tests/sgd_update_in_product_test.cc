// The CPU executor takes a plain SGD step inside the product of its
// gradient (runtime/gradient_update_fusion.h): w -= lr * x^T g as one matrix
// product into w. What a user relies on: the step's values, the same bits
// for any thread count, reads of the variable made in the same run keeping
// the old value, traces that still show every node, and the kernels' own
// errors when something is wrong, after which the session keeps working.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/resource_variable_ops.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/ops/state_ops.h"
#include "tests/sgd_step_values.h"

namespace tensorflow_ipu {
namespace {

using namespace sgd_step_values;  // NOLINT: the shared values, in a test

// One layer's weight and its SGD step on a fed batch and gradient.
struct Layer {
  explicit Layer(const Scope& root)
      : x(ops::Placeholder(root.WithOpName("x"), DT_FLOAT)),
        g(ops::Placeholder(root.WithOpName("g"), DT_FLOAT)),
        w(ops::VarHandleOp(root.WithOpName("w"), DT_FLOAT, TensorShape({kIn, kOut}))),
        init(ops::AssignVariableOp(root.WithOpName("init"), w, Filled(kIn, kOut, 3)).operation),
        grad(ops::MatMul(root.WithOpName("grad"), x, g, ops::MatMul::TransposeA(true))),
        step(ops::ResourceApplyGradientDescent(root.WithOpName("step"), w,
                                               ops::Const(root, kLearningRate), grad)
                 .operation),
        read(ops::ReadVariableOp(root.WithOpName("read"), w, DT_FLOAT)) {}
  ops::Placeholder x, g;
  ops::VarHandleOp w;
  Operation init;
  ops::MatMul grad;
  Operation step;
  ops::ReadVariableOp read;
};

// The batch and output gradient every step here is fed.
ClientSession::FeedType Batch(const Layer& layer) {
  return {{layer.x, Filled(kBatch, kIn, 1)}, {layer.g, Filled(kBatch, kOut, 2)}};
}

void Initialise(const ClientSession& session, const Layer& layer) {
  absl::Status status = session.Run({}, {}, {layer.init}, nullptr);
  ASSERT_TRUE(status.ok()) << status;
}

// Initialises w, takes one step, returns w.
Tensor OneStep(int threads) {
  Scope root = Scope::NewRootScope();
  Layer layer(root);
  SessionOptions options;
  options.num_threads = threads;
  ClientSession session(root, options);
  absl::Status s = session.Run({}, {}, {layer.init}, nullptr);
  EXPECT_TRUE(s.ok()) << s;
  s = session.Run(Batch(layer), {}, {layer.step}, nullptr);
  EXPECT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session.Run({layer.read}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out.empty() ? Tensor() : out[0];
}

TEST(SgdUpdateInProductTest, TheStepHasTheProductsValuesWithTheSameBitsForAnyThreadCount) {
  const Tensor one = OneStep(1);
  ExpectClose(one, SteppedWeights());
  for (int threads : {2, 3}) {
    EXPECT_TRUE(OneStep(threads).BitwiseEquals(one)) << threads << " threads";
  }
}

TEST(SgdUpdateInProductTest, AReadFetchedInTheSameRunKeepsTheOldValue) {
  Scope root = Scope::NewRootScope();
  Layer layer(root);
  // The step waits for the read, so the read sees the value before it.
  Operation step =
      ops::ResourceApplyGradientDescent(
          root.WithOpName("step_after_read").WithControlDependencies({layer.read.operation}),
          layer.w, ops::Const(root, kLearningRate), layer.grad)
          .operation;
  ClientSession session(root);
  ASSERT_NO_FATAL_FAILURE(Initialise(session, layer));
  std::vector<Tensor> out;
  absl::Status s = session.Run(Batch(layer), {layer.read}, {step}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(out[0].BitwiseEquals(Filled(kIn, kOut, 3))) << "the read changed under the step";
  s = session.Run({layer.read}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ExpectClose(out[0], SteppedWeights());
}

// w -= lr * (w m): the product's operand is a read of the variable, which
// shares its buffer, so the step must not write into it.
TEST(SgdUpdateInProductTest, AProductOfTheVariableItselfUsesItsOldValue) {
  constexpr int kN = 64;
  Scope root = Scope::NewRootScope();
  auto w = ops::VarHandleOp(root.WithOpName("w"), DT_FLOAT, TensorShape({kN, kN}));
  Operation init = ops::AssignVariableOp(root, w, Filled(kN, kN, 3)).operation;
  auto m = ops::Placeholder(root.WithOpName("m"), DT_FLOAT);
  auto grad = ops::MatMul(root, ops::ReadVariableOp(root, w, DT_FLOAT), m);
  Operation step =
      ops::ResourceApplyGradientDescent(root, w, ops::Const(root, kLearningRate), grad).operation;
  auto read = ops::ReadVariableOp(root, w, DT_FLOAT);
  ClientSession session(root);
  {
    absl::Status init_status = session.Run({}, {}, {init}, nullptr);
    ASSERT_TRUE(init_status.ok()) << init_status;
  }
  const Tensor w0 = Filled(kN, kN, 3), m0 = Filled(kN, kN, 5);
  absl::Status s = session.Run({{m, m0}}, {}, {step}, nullptr);
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

TEST(SgdUpdateInProductTest, ATracedRunTimesTheProductAsItsOwnNode) {
  Scope root = Scope::NewRootScope();
  Layer layer(root);
  ClientSession session(root);
  ASSERT_NO_FATAL_FAILURE(Initialise(session, layer));
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s = session.Run(options, Batch(layer), {}, {layer.step}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  bool product = false, step = false;
  for (const NodeExecStats& n : metadata.step_stats.node_stats) {
    product |= n.node_name == "grad";
    step |= n.node_name == "step";
  }
  EXPECT_TRUE(product) << "the MatMul is missing from the trace";
  EXPECT_TRUE(step);
  s = session.Run({layer.read}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ExpectClose(out[0], SteppedWeights());
}

TEST(SgdUpdateInProductTest, BadStepsGiveTheKernelsErrorsAndTheSessionKeepsWorking) {
  Scope root = Scope::NewRootScope();
  Layer layer(root);
  ClientSession session(root);
  const ClientSession::FeedType feeds = {{layer.x, Filled(kBatch, kIn, 1)},
                                         {layer.g, Filled(kBatch, kOut, 2)}};
  // Not initialised yet.
  absl::Status s = session.Run(feeds, {}, {layer.step}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("Attempting to use uninitialized value w"), std::string::npos) << s;
  ASSERT_NO_FATAL_FAILURE(Initialise(session, layer));
  // A gradient of the wrong shape: [784, 255] for a [784, 256] variable.
  s = session.Run({{layer.x, Filled(kBatch, kIn, 1)}, {layer.g, Filled(kBatch, kOut - 1, 2)}}, {},
                  {layer.step}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("Cannot apply gradient descent to variable w"), std::string::npos)
      << s;
  // Operands that do not multiply: the MatMul's own error.
  s = session.Run({{layer.x, Filled(kBatch, kIn, 1)}, {layer.g, Filled(kBatch + 1, kOut, 2)}}, {},
                  {layer.step}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("Matrix size-incompatible"), std::string::npos) << s;
  // The variable is untouched by the failed steps, and the next one works.
  std::vector<Tensor> out;
  s = session.Run({layer.read}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(out[0].BitwiseEquals(Filled(kIn, kOut, 3)));
  s = session.Run(feeds, {}, {layer.step}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  s = session.Run({layer.read}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ExpectClose(out[0], SteppedWeights());
}

// A product of a reference variable (VariableV2) that was never assigned:
// the MatMul's own error, not a read of a missing buffer.
TEST(SgdUpdateInProductTest, AnUninitialisedReferenceOperandGivesItsError) {
  Scope root = Scope::NewRootScope();
  Layer layer(root);
  auto ref = ops::Variable(root.WithOpName("ref"), TensorShape({kBatch, kIn}), DT_FLOAT);
  Operation step = ops::ResourceApplyGradientDescent(
                       root, layer.w, ops::Const(root, kLearningRate),
                       ops::MatMul(root, ref, layer.g, ops::MatMul::TransposeA(true)))
                       .operation;
  ClientSession session(root);
  ASSERT_NO_FATAL_FAILURE(Initialise(session, layer));
  absl::Status s = session.Run({{layer.g, Filled(kBatch, kOut, 2)}}, {}, {step}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("uninitialized value ref"), std::string::npos) << s;
}

// A learning rate kept in a reference variable that was never assigned:
// the update's own error.
TEST(SgdUpdateInProductTest, AnUninitialisedReferenceLearningRateGivesItsError) {
  Scope root = Scope::NewRootScope();
  Layer layer(root);
  auto lr = ops::Variable(root.WithOpName("lr"), TensorShape({}), DT_FLOAT);
  Operation step = ops::ResourceApplyGradientDescent(root, layer.w, lr, layer.grad).operation;
  ClientSession session(root);
  ASSERT_NO_FATAL_FAILURE(Initialise(session, layer));
  absl::Status s = session.Run(Batch(layer), {}, {step}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("uninitialized value lr"), std::string::npos) << s;
}

}  // namespace
}  // namespace tensorflow_ipu
