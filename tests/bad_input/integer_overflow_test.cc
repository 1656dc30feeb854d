// Integer arithmetic that overflows: in C++ a signed overflow is undefined
// (and the lowest int divided by -1 traps on x86); TensorFlow's integer
// ops give the wrapped value (two's complement). So do ours, on the host
// and on the IPU, in every op that adds, subtracts or multiplies integers.
//
// Found by tools/fuzz/graph_def_binary_fuzzer: a While loop adding int32
// past 2^31 - 1 was undefined behaviour in the CPU kernel of AddV2 (UBSan:
// "signed integer overflow: 1342177281 + 1342177281 cannot be represented
// in type 'int'"); its input is in tools/fuzz/corpus as
// regression-int32-add-overflow.pb.
#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/resource_variable_ops.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kMin = std::numeric_limits<int32_t>::lowest();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::lowest();

using IntegerOverflowTest = testing::IpuTest;

// The element-wise ops and a sum, on the host and on the IPU alike.
TEST_F(IntegerOverflowTest, ElementwiseOpsAndSumsWrapOnTheHostAndTheIpu) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithDevice("cpu").WithOpName("a"), DT_INT32,
                            ops::Placeholder::Shape({4}));
  auto b = ops::Placeholder(root.WithDevice("cpu").WithOpName("b"), DT_INT32,
                            ops::Placeholder::Shape({4}));
  // A scalar too: Eigen computes a short vector in packets, where the
  // sanitizers see no overflow, but a scalar with C++'s own operators.
  auto c = ops::Placeholder(root.WithDevice("cpu").WithOpName("c"), DT_INT32,
                            ops::Placeholder::Shape({}));
  std::vector<Output> fetches;
  for (const Scope& s : {root.WithDevice("cpu"), ipu::scopes::ipu_scope(root, "/device:IPU:0")}) {
    fetches.push_back(ops::AddV2(s, a, b));
    fetches.push_back(ops::Sub(s, b, a));
    fetches.push_back(ops::Mul(s, a, b));
    fetches.push_back(ops::Neg(s, a));
    fetches.push_back(ops::Sum(s, a, {0}));
    fetches.push_back(ops::AddV2(s, c, c));
    fetches.push_back(ops::Mul(s, c, c));
  }
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status status = session.Run({{a, Tensor::Vector<int32_t>({kMax, kMin, 65536, 7})},
                                     {b, Tensor::Vector<int32_t>({1, 1, 65536, -1})},
                                     {c, Tensor::Scalar<int32_t>(kMax)}},
                                    fetches, &out);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(out.size(), 14u);
  const std::vector<Tensor> want = {
      Tensor::Vector<int32_t>({kMin, kMin + 1, 131072, 6}),
      Tensor::Vector<int32_t>({kMin + 2, kMin + 1, 0, -8}),
      Tensor::Vector<int32_t>({kMax, kMin, 0, -7}),  // 2^16 x 2^16 wraps to 0
      Tensor::Vector<int32_t>({-kMax, kMin, -65536, -7}),
      Tensor::Scalar<int32_t>(65542),  // 2^31 - 1 - 2^31 + 2^16 + 7
      Tensor::Scalar<int32_t>(-2),     // 2^32 - 2
      Tensor::Scalar<int32_t>(1),      // 2^62 - 2^32 + 1
  };
  for (int i = 0; i < 14; ++i) {
    EXPECT_TRUE(out[i].BitwiseEquals(want[i % 7]))
        << (i < 7 ? "host" : "IPU") << " fetch " << i % 7 << ": " << out[i].DebugString();
  }
}

// The host's other integer arithmetic: a product of matrices, a bias, its
// gradient, a product reduction, a mean and a variable's update.
TEST(IntegerOverflowHostTest, ProductsBiasesReductionsAndUpdatesWrap) {
  Scope root = Scope::NewRootScope();
  auto m = ops::Placeholder(root.WithOpName("m"), DT_INT32, ops::Placeholder::Shape({2, 2}));
  auto bias = ops::Placeholder(root.WithOpName("bias"), DT_INT32, ops::Placeholder::Shape({2}));
  auto counter = ops::VarHandleOp(root.WithOpName("counter"), DT_INT64, TensorShape({}));
  auto init = ops::AssignVariableOp(root, counter, ops::Const(root, kMax64));
  auto step = ops::AssignAddVariableOp(root.WithControlDependencies({init.operation}),
                                       counter, ops::Const(root, int64_t{1}));
  auto read = ops::ReadVariableOp(root.WithControlDependencies({step.operation}), counter,
                                  DT_INT64);
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::StatusOr<Tensor> m_value = Tensor::FromValues<int32_t>({65536, kMax, 65536, 1},
                                                               TensorShape({2, 2}));
  ASSERT_TRUE(m_value.ok()) << m_value.status();
  const std::vector<Output> fetches = {
      ops::MatMul(root, m, m), ops::BiasAdd(root, m, bias), ops::BiasAddGrad(root, m),
      ops::Prod(root, m, {1}), ops::Mean(root, m, {0}),     ops::Square(root, m),
      read};
  absl::Status status =
      session.Run({{m, *m_value}, {bias, Tensor::Vector<int32_t>({kMax, kMin})}}, fetches, &out);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(out.size(), 7u);
  // [[2^16, 2^31-1], [2^16, 1]]^2 = [[2^32 + (2^31-1)2^16, (2^31-1)(2^16 + 1)],
  // [2^32 + 2^16, (2^31-1)2^16 + 1]] modulo 2^32.
  absl::StatusOr<Tensor> product = Tensor::FromValues<int32_t>(
      {-65536, 2147418111, 65536, -65535}, TensorShape({2, 2}));
  ASSERT_TRUE(product.ok()) << product.status();
  EXPECT_TRUE(out[0].BitwiseEquals(*product)) << out[0].DebugString();
  absl::StatusOr<Tensor> biased = Tensor::FromValues<int32_t>(
      {-2147418113, -1, -2147418113, kMin + 1}, TensorShape({2, 2}));
  ASSERT_TRUE(biased.ok()) << biased.status();
  EXPECT_TRUE(out[1].BitwiseEquals(*biased)) << out[1].DebugString();
  EXPECT_TRUE(out[2].BitwiseEquals(Tensor::Vector<int32_t>({131072, kMin})))
      << out[2].DebugString();
  EXPECT_TRUE(out[3].BitwiseEquals(Tensor::Vector<int32_t>({-65536, 65536})))
      << out[3].DebugString();
  // The column sums wrap (2^17, and 2^31 wraps to -2^31) before the
  // truncated division by 2.
  EXPECT_TRUE(out[4].BitwiseEquals(Tensor::Vector<int32_t>({65536, kMin / 2})))
      << out[4].DebugString();
  absl::StatusOr<Tensor> squares =
      Tensor::FromValues<int32_t>({0, 1, 0, 1}, TensorShape({2, 2}));
  ASSERT_TRUE(squares.ok()) << squares.status();
  EXPECT_TRUE(out[5].BitwiseEquals(*squares)) << out[5].DebugString();
  EXPECT_TRUE(out[6].BitwiseEquals(Tensor::Scalar<int64_t>(kMin64))) << out[6].DebugString();
}

}  // namespace
}  // namespace tensorflow_ipu
