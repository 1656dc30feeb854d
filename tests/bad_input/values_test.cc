// Values whose conversion C++ leaves undefined: NaN, infinities and
// floating-point values beyond an integer type's range, cast to integers.
// The result is defined (truncated toward zero, saturated at the type's
// range, NaN to 0) and the same on the host and on the IPU.
//
// Found by tools/fuzz/graph_def_binary_fuzzer: a GraphDef casting a NaN to
// int32 was undefined behaviour in the CPU kernel (UBSan:
// "-nan is outside the range of representable values of type 'int'").
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::lowest();

const std::vector<float>& Awkward() {
  static const auto* v = new std::vector<float>{
      kNaN, -kNaN, kInf, -kInf, 1e10f, -1e10f, 3e9f, 2.7f, -2.7f, -0.5f};
  return *v;
}
const std::vector<int32_t>& AwkwardAsInt32() {
  static const auto* v = new std::vector<int32_t>{
      0, 0, kMax32, kMin32, kMax32, kMin32, kMax32, 2, -2, 0};
  return *v;
}

using UndefinedConversionTest = testing::IpuTest;
using ::testing::HasSubstr;

// More values than the shape holds: an error, never a write past the
// tensor's buffer; and the values can then be given again, rightly.
TEST(BadValuesTest, MoreValuesThanTheShapeHolds) {
  absl::StatusOr<Tensor> t =
      Tensor::FromValues<float>({1, 2, 3, 4, 5, 6, 7}, TensorShape({2, 3}));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "7 value(s) given for a tensor of type float and shape [2,3], which "
            "holds 6; give exactly one value per element");
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, ops::Placeholder::Shape({2, 3}));
  auto y = ops::Neg(root, x);
  ClientSession session(root);
  absl::StatusOr<Tensor> good = Tensor::FromValues<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  ASSERT_TRUE(good.ok()) << good.status();
  std::vector<Tensor> out;
  {
    absl::Status call_status = session.Run({{x, *good}}, {y}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(out[0].DebugString(), "[[-1. -2. -3.]\n [-4. -5. -6.]]");
}

TEST(BadValuesTest, FewerValuesThanTheShapeHolds) {
  absl::StatusOr<Tensor> t = Tensor::FromValues<int32_t>({1, 2}, TensorShape({3}));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("2 value(s) given for a tensor of type int32 and shape [3], "
                        "which holds 3"));
}

TEST(BadValuesTest, ValuesForAShapeThatOverflows) {
  absl::StatusOr<Tensor> t = Tensor::FromValues<float>(
      {1}, TensorShape({int64_t{1} << 32, int64_t{1} << 32, 2}));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("shape [4294967296,4294967296,2] has more than 2^38 elements"));
}

// Tensor::Slice with rows outside the tensor, from the extremes of int64,
// on tensors without rows (a scalar, an uninitialised tensor, a resource
// handle) and on an empty one: an InvalidArgument naming the rows, never a
// read outside the buffer. Slices taken on several threads at once share
// one buffer safely.
TEST(BadValuesTest, SliceRowsOutsideTheTensor) {
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::lowest();
  for (auto [start, limit] : std::vector<std::pair<int64_t, int64_t>>{
           {kMin, 1}, {0, kMax}, {kMax, kMax}, {kMin, kMin}, {-1, -1}, {2, 1}, {3, 3}}) {
    absl::StatusOr<Tensor> s = t.Slice(start, limit);
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << start << ", " << limit;
    EXPECT_THAT(std::string(s.status().message()), HasSubstr("are not within the 2 rows"));
  }
  for (const Tensor& rowless : {Tensor::Scalar<float>(1), Tensor()}) {
    absl::StatusOr<Tensor> s = rowless.Slice(0, 0);
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.status().message()), HasSubstr("rank 1 or more"));
  }
  Tensor empty(DT_FLOAT, TensorShape({0, 5}));
  absl::StatusOr<Tensor> none = empty.Slice(0, 0);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->shape(), TensorShape({0, 5}));

  Tensor big(DT_FLOAT, TensorShape({64, 16}));
  for (int i = 0; i < 64 * 16; ++i) big.data<float>()[i] = static_cast<float>(i);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&big, &wrong, k] {
      for (int r = 0; r < 1000; ++r) {
        const int64_t row = (r + k) % 64;
        absl::StatusOr<Tensor> s = big.Slice(row, row + 1);
        if (!s.ok() || s->data<float>()[0] != 16.f * row) ++wrong;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A name TensorFlow refuses, given through the client Scope: the scope's
// status names it, and a graph built afresh still runs.
TEST(BadValuesTest, ScopeOpNameWithAnOutputIndex) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("a:0"), 1.f);
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("Node name 'a:0' (op: 'Const') is invalid: character ':' at "
                        "position 1"));
  Scope fresh = Scope::NewRootScope();
  auto good = ops::Const(fresh.WithOpName("a"), 1.f);
  ClientSession session(fresh);
  std::vector<Tensor> out;
  {
    absl::Status call_status = session.Run({}, {good}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(out[0].DebugString(), "1.0");
}

TEST_F(UndefinedConversionTest, FloatToInt32OnTheHostAndTheIpu) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({10}));
  auto on_host = ops::Cast(root.WithDevice("cpu"), x, DT_INT32);
  auto on_ipu =
      ops::Cast(ipu::scopes::ipu_scope(root, "/device:IPU:0"), x, DT_INT32);
  auto const_on_ipu = ops::Cast(ipu::scopes::ipu_scope(root, "/device:IPU:0"),
                                ops::Const(root, Tensor::Vector<float>(Awkward())),
                                DT_INT32);
  ClientSession session(root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  .Run({{x, Tensor::Vector<float>(Awkward())}},
                       {on_host, on_ipu, const_on_ipu}, &out)
                  .ok());
  ASSERT_EQ(out.size(), 3u);
  for (const Tensor& t : out) {
    EXPECT_TRUE(t.BitwiseEquals(Tensor::Vector<int32_t>(AwkwardAsInt32())))
        << t.DebugString();
  }
}

// Products of empty matrices: a depth of 0 gives zeros (empty sums), no
// rows an empty result, on the host and on the IPU alike. The IPU's planner
// used to refuse them as if they did not fit in a tile's memory.
TEST_F(UndefinedConversionTest, EmptyProductsOnTheHostAndTheIpu) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto a = ops::Placeholder(root.WithDevice("cpu").WithOpName("a"), DT_FLOAT,
                            ops::Placeholder::Shape({2, 0}));
  auto b = ops::Placeholder(root.WithDevice("cpu").WithOpName("b"), DT_FLOAT,
                            ops::Placeholder::Shape({0, 3}));
  auto none = ops::Placeholder(root.WithDevice("cpu").WithOpName("none"), DT_FLOAT,
                               ops::Placeholder::Shape({0, 4}));
  auto w = ops::Placeholder(root.WithDevice("cpu").WithOpName("w"), DT_FLOAT,
                            ops::Placeholder::Shape({4, 3}));
  std::vector<Output> fetches = {ops::MatMul(root.WithDevice("cpu"), a, b),
                                 ops::MatMul(ipu, a, b),
                                 ops::MatMul(root.WithDevice("cpu"), none, w),
                                 ops::MatMul(ipu, none, w),
                                 // The product's gradient shapes: [0,3] x [3,4]^T.
                                 ops::MatMul(ipu, ops::MatMul(ipu, none, w), w,
                                             ops::MatMul::TransposeB(true))};
  absl::StatusOr<Tensor> w_value = Tensor::FromValues<float>(
      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, TensorShape({4, 3}));
  ASSERT_TRUE(w_value.ok()) << w_value.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status status = session.Run({{a, Tensor(DT_FLOAT, TensorShape({2, 0}))},
                                     {b, Tensor(DT_FLOAT, TensorShape({0, 3}))},
                                     {none, Tensor(DT_FLOAT, TensorShape({0, 4}))},
                                     {w, *w_value}},
                                    fetches, &out);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(out.size(), 5u);
  for (int i : {0, 1}) {
    EXPECT_EQ(out[i].DebugString(), "[[0. 0. 0.]\n [0. 0. 0.]]") << "fetch " << i;
  }
  for (int i : {2, 3}) EXPECT_EQ(out[i].shape(), TensorShape({0, 3})) << "fetch " << i;
  EXPECT_EQ(out[4].shape(), TensorShape({0, 4}));
}

TEST_F(UndefinedConversionTest, FloatingPointToOtherIntegersOnTheHost) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({5}));
  auto d = ops::Placeholder(root.WithOpName("d"), DT_DOUBLE,
                            ops::Placeholder::Shape({3}));
  auto bytes = ops::Cast(root, x, DT_UINT8);
  auto longs = ops::Cast(root, x, DT_INT64);
  auto from_double = ops::Cast(root, d, DT_INT32);
  auto from_half = ops::Cast(root, ops::Cast(root, x, DT_HALF), DT_INT32);
  ClientSession session(root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  .Run({{x, {kNaN, -1.f, 300.f, 2.5f, 1e19f}},
                        {d, {1e300, -1e300, -7.9}}},
                       {bytes, longs, from_double, from_half}, &out)
                  .ok());
  EXPECT_TRUE(out[0].BitwiseEquals(Tensor::Vector<uint8_t>({0, 0, 255, 2, 255})))
      << out[0].DebugString();
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(out[1].BitwiseEquals(Tensor::Vector<int64_t>({0, -1, 300, 2, kMax64})))
      << out[1].DebugString();
  EXPECT_TRUE(out[2].BitwiseEquals(Tensor::Vector<int32_t>({kMax32, kMin32, -7})))
      << out[2].DebugString();
  // Through half: 300 and 2.5 are exact; 1e19 overflows half to +inf.
  EXPECT_TRUE(out[3].BitwiseEquals(Tensor::Vector<int32_t>({0, -1, 300, 2, kMax32})))
      << out[3].DebugString();
}

}  // namespace
}  // namespace tensorflow_ipu
