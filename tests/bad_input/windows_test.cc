// Convolutions and max pooling given hostile attributes and sizes: zero or
// negative strides and windows, windows of 2^62, sizes vectors that are
// negative, overflowing or of the wrong length, a filter larger than its
// input. Each is a Status naming the culprit, on the host and on the IPU,
// and the session keeps working after it.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;

class BadWindowsTest : public testing::IpuTest,
                       public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    testing::IpuTest::SetUp();
    Configure(1);
  }
  bool on_ipu() const { return GetParam(); }
  Scope Where(const Scope& root) const {
    return on_ipu() ? ipu::scopes::ipu_scope(root, "/device:IPU:0") : root;
  }
};

Tensor Ones(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = 1;
  return t;
}

// A good convolution in the same session, after the error: [1,3,3,1] of
// ones with a 2x2 filter of ones, VALID: four 4s.
void ExpectSessionStillWorks(const Scope& root, const Scope& where, ClientSession& session) {
  auto x = ops::Placeholder(root.WithDevice("cpu"), DT_FLOAT,
                            ops::Placeholder::Shape({1, 3, 3, 1}));
  auto y = ops::Conv2D(where, x, ops::Const(where, Ones({2, 2, 1, 1})), {1, 1, 1, 1}, "VALID");
  std::vector<Tensor> out;
  absl::Status s = session.Run({{x, Ones({1, 3, 3, 1})}}, {y}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].DebugString(), "[[[[4.]\n   [4.]]\n\n  [[4.]\n   [4.]]]]");
}

TEST_P(BadWindowsTest, ZeroAndNegativeStridesAndWindowsAreRefusedWhenBuilt) {
  Scope root = Scope::NewRootScope();
  Scope s = Where(root);
  auto x = ops::Const(s, Ones({1, 4, 4, 1}));
  ops::Conv2D(s, x, ops::Const(s, Ones({2, 2, 1, 1})), {1, 0, 1, 1}, "VALID");
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument) << root.status();
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("strides"));

  Scope root2 = Scope::NewRootScope();
  Scope s2 = Where(root2);
  ops::MaxPool(s2, ops::Const(s2, Ones({1, 4, 4, 1})), {1, -1, 2, 1}, {1, 1, 1, 1}, "VALID");
  EXPECT_EQ(root2.status().code(), absl::StatusCode::kInvalidArgument) << root2.status();
  EXPECT_THAT(std::string(root2.status().message()), HasSubstr("ksize"));

  Scope root3 = Scope::NewRootScope();
  Scope s3 = Where(root3);
  ops::MaxPool(s3, ops::Const(s3, Ones({1, 4, 4, 1})), {1, 2, 2, 1}, {1, 2, 2, 1}, "SOMETIMES");
  EXPECT_EQ(root3.status().code(), absl::StatusCode::kInvalidArgument) << root3.status();
  EXPECT_THAT(std::string(root3.status().message()), HasSubstr("SOMETIMES"));
}

// A window of 2^62 (SAME) is refused by name, before its arithmetic can
// overflow.
TEST_P(BadWindowsTest, AHugeWindowIsRefusedByName) {
  Scope root = Scope::NewRootScope();
  Scope s = Where(root);
  auto x = ops::Placeholder(root.WithDevice("cpu"), DT_FLOAT,
                            ops::Placeholder::Shape({1, 2, 2, 1}));
  const int64_t huge = int64_t{1} << 62;
  auto y = ops::MaxPool(s, x, {1, huge, huge, 1}, {1, 1, 1, 1}, "SAME");
  absl::Status st = root.status();
  if (st.ok()) {
    ClientSession session(root);
    std::vector<Tensor> out;
    st = session.Run({{x, Ones({1, 2, 2, 1})}}, {y}, &out);
  }
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("MaxPool"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("ksize [1,4611686018427387904"));
}

// A filter larger than its input (VALID) is refused naming the op.
TEST_P(BadWindowsTest, AFilterLargerThanItsInputIsRefused) {
  Scope root = Scope::NewRootScope();
  Scope s = Where(root);
  auto x = ops::Placeholder(root.WithDevice("cpu"), DT_FLOAT,
                            ops::Placeholder::Shape({1, 3, 3, 1}));
  ops::Conv2D(s, x, ops::Const(s, Ones({5, 5, 1, 1})), {1, 1, 1, 1}, "VALID");
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument) << root.status();
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("Conv2D"));
}

// Both backends compute a float Conv2D with oneDNN's direct kernels, which
// refuse some geometries: a VALID window under a stride that leaves input
// rows no window reads (here the fifth row and column), and an empty batch.
// Those fall back to the im2col product, with the convolution's values.
TEST_P(BadWindowsTest, ShapesOneDnnRefusesStillGiveTheConvolution) {
  Scope root = Scope::NewRootScope();
  Scope s = Where(root);
  auto x = ops::Placeholder(root.WithDevice("cpu"), DT_FLOAT,
                            ops::Placeholder::Shape({1, 5, 5, 1}));
  auto y = ops::Conv2D(s, x, ops::Const(s, Ones({2, 2, 1, 1})), {1, 2, 2, 1}, "VALID");
  auto none = ops::Conv2D(s, ops::Const(s, Ones({0, 4, 4, 1})), ops::Const(s, Ones({2, 2, 1, 3})),
                          {1, 1, 1, 1}, "SAME");
  ASSERT_TRUE(root.ok()) << root.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status st = session.Run({{x, Ones({1, 5, 5, 1})}}, {y, none}, &out);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(out[0].DebugString(), "[[[[4.]\n   [4.]]\n\n  [[4.]\n   [4.]]]]");
  EXPECT_EQ(out[1].shape(), TensorShape({0, 4, 4, 3}));
  ExpectSessionStillWorks(root, s, session);
}

// Filter gradients at the edges of the chunked sum (conv_filter_grad.h):
// an empty batch gives zeros, and a single output position (one output
// row: the second half of the rows is empty) gives its one product.
TEST_P(BadWindowsTest, FilterGradientsOfEmptyAndSingleRowBatches) {
  Scope root = Scope::NewRootScope();
  Scope s = Where(root);
  auto empty = ops::Conv2DBackpropFilter(s, ops::Const(s, Ones({0, 4, 4, 1})),
                                         ops::Const(s, Tensor::Vector<int32_t>({2, 2, 1, 2})),
                                         ops::Const(s, Ones({0, 3, 3, 2})), {1, 1, 1, 1},
                                         "VALID");
  auto single = ops::Conv2DBackpropFilter(s, ops::Const(s, Ones({1, 2, 2, 1})),
                                          ops::Const(s, Tensor::Vector<int32_t>({2, 2, 1, 3})),
                                          ops::Const(s, Ones({1, 1, 1, 3})), {1, 1, 1, 1},
                                          "VALID");
  ASSERT_TRUE(root.ok()) << root.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status st = session.Run({empty, single}, &out);
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(out[0].shape(), TensorShape({2, 2, 1, 2}));
  for (int64_t i = 0; i < out[0].NumElements(); ++i) EXPECT_EQ(out[0].data<float>()[i], 0.f);
  ASSERT_EQ(out[1].shape(), TensorShape({2, 2, 1, 3}));
  for (int64_t i = 0; i < out[1].NumElements(); ++i) EXPECT_EQ(out[1].data<float>()[i], 1.f);
  ExpectSessionStillWorks(root, s, session);
}

// Shapes known only when fed (the host only: the IPU needs static shapes):
// the kernels check what the shape functions could not, and the session
// keeps working.
using BadWindowsOnTheHostTest = testing::IpuTest;

TEST_F(BadWindowsOnTheHostTest, AFilterLargerThanItsFedInputIsAnErrorAtRunTime) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto y = ops::Conv2D(root, x, ops::Const(root, Ones({5, 5, 1, 1})), {1, 1, 1, 1}, "VALID");
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status st = session.Run({{x, Ones({1, 3, 3, 1})}}, {y}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("Conv2D"));
  ExpectSessionStillWorks(root, root, session);
}

TEST_F(BadWindowsOnTheHostTest, SizesVectorsThatNameNoShapeAreErrors) {
  Scope root = Scope::NewRootScope();
  auto sizes = ops::Placeholder(root, DT_INT32);
  auto dy = ops::Placeholder(root, DT_FLOAT);
  auto dx = ops::Conv2DBackpropInput(root, sizes, ops::Const(root, Ones({2, 2, 1, 1})), dy,
                                     {1, 1, 1, 1}, "VALID");
  ClientSession session(root);
  std::vector<Tensor> out;
  for (const std::vector<int32_t>& bad :
       {std::vector<int32_t>{1, -3, 3, 1}, std::vector<int32_t>{1, 3, 3},
        std::vector<int32_t>{1, INT32_MAX, INT32_MAX, 1}}) {
    absl::Status st =
        session.Run({{sizes, Tensor::Vector<int32_t>(bad)}, {dy, Ones({1, 2, 2, 1})}}, {dx}, &out);
    EXPECT_FALSE(st.ok()) << "sizes " << ::testing::PrintToString(bad);
    EXPECT_THAT(std::string(st.message()), HasSubstr("input_sizes")) << st;
  }
  ExpectSessionStillWorks(root, root, session);
}

INSTANTIATE_TEST_SUITE_P(Backends, BadWindowsTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Ipu" : "Cpu");
                         });

}  // namespace
}  // namespace tensorflow_ipu
