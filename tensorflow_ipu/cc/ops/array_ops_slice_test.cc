// Slicing array ops run through ClientSession: Slice, StridedSlice (all
// masks, negative indices and strides) and OneHot.
#include "Eigen/Core"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/array_ops.h"
#include "tensorflow_ipu/cc/ops/ops_test_util.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"

namespace tensorflow_ipu {
namespace {

using test::ExpectInvalid;
using test::ExpectTensor;
using test::Iota;
using test::RunOk;
using test::RunStatus;

Tensor IotaTensor(const TensorShape& shape) {
  return Tensor::FromVector(Iota<float>(shape.num_elements()), shape);
}

// ------------------------------------------------------------------ Slice

TEST(SliceTest, BoxesAndToTheEnd) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({3, 4}));  // rows 0..3, 4..7, 8..11
  auto s = ops::Slice(root, x, {1, 1}, {2, -1});
  auto s64 = ops::Slice(root, x, Input(std::initializer_list<int64_t>{0, 2}),
                        Input(std::initializer_list<int64_t>{3, 1}));
  auto whole = ops::Slice(root, x, {0, 0}, {-1, -1});
  auto empty = ops::Slice(root, x, {3, 0}, {0, 4});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(s.output.shape(), TensorShape({2, 3}));
  EXPECT_EQ(empty.output.shape(), TensorShape({0, 4}));
  auto out = RunOk(root, {s, s64, whole, empty});
  ExpectTensor<float>(out[0], {2, 3}, {5, 6, 7, 9, 10, 11});
  ExpectTensor<float>(out[1], {3, 1}, {2, 6, 10});
  ExpectTensor<float>(out[2], {3, 4}, Iota<float>(12));
  ExpectTensor<float>(out[3], {0, 4}, {});
}

TEST(SliceTest, Rank3AndDtypes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({2, 3, 4}));
  auto s = ops::Slice(root, x, {1, 0, 1}, {1, 2, 2});
  auto b = ops::Slice(root, ops::Const(root, {true, false, true}), {1}, {2});
  auto h = ops::Slice(root, ops::Const(root, Tensor::Vector<half>({half(1), half(2), half(3)})), {2}, {-1});
  auto out = RunOk(root, {s, b, h});
  ExpectTensor<float>(out[0], {1, 2, 2}, {13, 14, 17, 18});
  ExpectTensor<bool>(out[1], {2}, {false, true});
  ExpectTensor<half>(out[2], {1}, {half(3)});
}

TEST(SliceTest, PartialShapeInference) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 4}));
  auto b = ops::Placeholder(root, DT_INT32, ops::Placeholder::Shape({2}));
  EXPECT_EQ(ops::Slice(root, x, {1, 1}, {2, -1}).output.shape(),
            TensorShape({2, 3}));
  EXPECT_EQ(ops::Slice(root, x, {1, 1}, {-1, 2}).output.shape(),
            TensorShape({-1, 2}));
  auto dyn = ops::Slice(root, x, b, {1, -1});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(dyn.output.shape(), TensorShape({1, -1}));
  auto out = RunOk(root, {dyn}, {{x, IotaTensor({3, 4})}, {b, {2, 1}}});
  ExpectTensor<float>(out[0], {1, 3}, {9, 10, 11});
}

TEST(SliceTest, Errors) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({3, 4}));
  auto begin = ops::Const(root, {1, 0});
  auto size = ops::Const(root, {3, 4});
  ops::Slice(root.WithOpName("sl"), x, begin, size);
  ExpectInvalid(root.status(), {"Expected size[0] in [0, 2], but got 3", "'sl'",
                                "[3,4], [2], [2]"});
  Scope root2 = Scope::NewRootScope();
  ops::Slice(root2, ops::Const(root2, IotaTensor({3, 4})), {0, 5}, {1, -1});
  ExpectInvalid(root2.status(), {"Expected begin[1] in [0, 4], but got 5"});
  Scope root3 = Scope::NewRootScope();
  ops::Slice(root3, ops::Const(root3, IotaTensor({3, 4})), {0}, {1});
  ExpectInvalid(root3.status(), {"Expected begin and size arguments to be 1-D "
                                 "tensors of size 2"});
  Scope root4 = Scope::NewRootScope();
  auto b = ops::Placeholder(root4, DT_INT32, ops::Placeholder::Shape({2}));
  auto size2 = ops::Const(root4, {2, 2});
  auto s = ops::Slice(root4.WithOpName("dyn"), ops::Const(root4, IotaTensor({3, 4})), b,
                      size2);
  ExpectInvalid(RunStatus(root4, {s}, {{b, {2, 0}}}),
                {"Expected size[0] in [0, 1], but got 2", "'dyn'"});
}

// ----------------------------------------------------------- StridedSlice

using SS = ops::StridedSlice;

TEST(StridedSliceTest, BasicNegativeAndClamped) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {0, 1, 2, 3, 4, 5});
  auto a = SS(root, x, {1}, {4}, {1});                      // x[1:4]
  auto b = SS(root, x, {-2}, {0}, {-1});                    // x[-2:0:-1]
  auto rev = SS(root, x, {0}, {0}, {-1},
                SS::BeginMask(1).EndMask(1));               // x[::-1]
  auto step = SS(root, x, {0}, {0}, {2}, SS::BeginMask(1).EndMask(1));  // x[::2]
  auto rstep = SS(root, x, {-1}, {0}, {-3}, SS::EndMask(1));            // x[-1::-3]
  auto clamp = SS(root, x, {-10}, {10}, {1});               // x[-10:10]
  auto empty = SS(root, x, {4}, {2}, {1});                  // x[4:2]
  auto last = SS(root, x, {-1}, {0}, {1}, SS::ShrinkAxisMask(1));  // x[-1]
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(a.output.shape(), TensorShape({3}));
  EXPECT_EQ(last.output.shape(), TensorShape());
  EXPECT_EQ(empty.output.shape(), TensorShape({0}));
  auto out = RunOk(root, {a, b, rev, step, rstep, clamp, empty, last});
  ExpectTensor<int32_t>(out[0], {3}, {1, 2, 3});
  ExpectTensor<int32_t>(out[1], {4}, {4, 3, 2, 1});
  ExpectTensor<int32_t>(out[2], {6}, {5, 4, 3, 2, 1, 0});
  ExpectTensor<int32_t>(out[3], {3}, {0, 2, 4});
  ExpectTensor<int32_t>(out[4], {2}, {5, 2});
  ExpectTensor<int32_t>(out[5], {6}, {0, 1, 2, 3, 4, 5});
  ExpectTensor<int32_t>(out[6], {0}, {});
  ExpectTensor<int32_t>(out[7], {}, {5});
}

TEST(StridedSliceTest, MatrixColumnsRowsAndSteps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({3, 4}));
  // x[:, 1]
  auto col = SS(root, x, {0, 1}, {0, 2}, {1, 1},
                SS::BeginMask(1).EndMask(1).ShrinkAxisMask(2));
  // x[1]
  auto row = SS(root, x, {1}, {2}, {1}, SS::ShrinkAxisMask(1));
  // x[1:-1, ::2]   (the second entry's begin/end are masked)
  auto mid = SS(root, x, {1, 0}, {-1, 0}, {1, 2}, SS::BeginMask(2).EndMask(2));
  // x[::-1, 3:0:-2]
  auto back = SS(root, x, {0, 3}, {0, 0}, {-1, -2}, SS::BeginMask(1).EndMask(1));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(col.output.shape(), TensorShape({3}));
  EXPECT_EQ(row.output.shape(), TensorShape({4}));
  EXPECT_EQ(mid.output.shape(), TensorShape({1, 2}));
  EXPECT_EQ(back.output.shape(), TensorShape({3, 2}));
  auto out = RunOk(root, {col, row, mid, back});
  ExpectTensor<float>(out[0], {3}, {1, 5, 9});
  ExpectTensor<float>(out[1], {4}, {4, 5, 6, 7});
  ExpectTensor<float>(out[2], {1, 2}, {4, 6});
  ExpectTensor<float>(out[3], {3, 2}, {11, 9, 7, 5, 3, 1});
}

TEST(StridedSliceTest, NewAxisAndEllipsis) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({2, 3, 4}));
  // x[..., 0]
  auto e0 = SS(root, x, {0, 0}, {0, 1}, {1, 1},
               SS::EllipsisMask(1).ShrinkAxisMask(2));
  // x[1, ..., ::-1]
  auto e1 = SS(root, x, {1, 0, 0}, {2, 0, 0}, {1, 1, -1},
               SS::ShrinkAxisMask(1).EllipsisMask(2).BeginMask(4).EndMask(4));
  // x[newaxis, :, 2]
  auto na = SS(root, x, {0, 0, 2}, {0, 0, 3}, {1, 1, 1},
               SS::NewAxisMask(1).BeginMask(2).EndMask(2).ShrinkAxisMask(4));
  // x[..., newaxis]: identity data with a trailing 1
  auto tail = SS(root, x, {0, 0}, {0, 0}, {1, 1},
                 SS::EllipsisMask(1).NewAxisMask(2));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(e0.output.shape(), TensorShape({2, 3}));
  EXPECT_EQ(e1.output.shape(), TensorShape({3, 4}));
  EXPECT_EQ(na.output.shape(), TensorShape({1, 2, 4}));
  EXPECT_EQ(tail.output.shape(), TensorShape({2, 3, 4, 1}));
  auto out = RunOk(root, {e0, e1, na, tail});
  ExpectTensor<float>(out[0], {2, 3}, {0, 4, 8, 12, 16, 20});
  ExpectTensor<float>(out[1], {3, 4},
                      {15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20});
  ExpectTensor<float>(out[2], {1, 2, 4}, {8, 9, 10, 11, 20, 21, 22, 23});
  ExpectTensor<float>(out[3], {2, 3, 4, 1}, Iota<float>(24));
}

TEST(StridedSliceTest, DtypesAndInt64Indices) {
  Scope root = Scope::NewRootScope();
  auto h = ops::Const(root, Tensor::Vector<half>({half(1), half(2), half(3)}));
  auto b = ops::Const(root, {true, false, true, false});
  auto i64 = ops::Const(root, {int64_t{7}, int64_t{8}});
  auto l = [](std::initializer_list<int64_t> v) { return Input(v); };
  auto sh = SS(root, h, l({2}), l({0}), l({-1}));
  auto sb = SS(root, b, {0}, {4}, {3});
  auto si = SS(root, i64, {1}, {2}, {1}, SS::ShrinkAxisMask(1));
  auto out = RunOk(root, {sh, sb, si});
  ExpectTensor<half>(out[0], {2}, {half(3), half(2)});
  ExpectTensor<bool>(out[1], {2}, {true, false});
  ExpectTensor<int64_t>(out[2], {}, {8});
}

TEST(StridedSliceTest, NonConstantIndices) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({3, 4}));
  auto b = ops::Placeholder(root, DT_INT32, ops::Placeholder::Shape({2}));
  auto s = SS(root, x, b, {3, 4}, {1, 1}, SS::ShrinkAxisMask(1));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(s.output.shape(), TensorShape({-1}));
  auto out = RunOk(root, {s}, {{b, {2, 1}}});
  ExpectTensor<float>(out[0], {3}, {9, 10, 11});
}

TEST(StridedSliceTest, PartialShapeInference) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 4}));
  // x[:, 1], x[1:3], x[newaxis, ..., ::2]
  auto col = SS(root, x, {0, 1}, {0, 2}, {1, 1},
                SS::BeginMask(1).EndMask(1).ShrinkAxisMask(2));
  auto rows = SS(root, x, {1}, {3}, {1});
  auto na = SS(root, x, {0, 0, 0}, {0, 0, 0}, {1, 1, 2},
               SS::NewAxisMask(1).EllipsisMask(2).BeginMask(4).EndMask(4));
  auto u = ops::Placeholder(root, DT_FLOAT);
  auto unknown = SS(root, u, {1}, {3}, {1});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(col.output.shape(), TensorShape({-1}));
  EXPECT_EQ(rows.output.shape(), TensorShape({-1, 4}));
  EXPECT_EQ(na.output.shape(), TensorShape({1, -1, 2}));
  EXPECT_TRUE(unknown.output.shape().unknown_rank());
  auto out = RunOk(root, {col, rows, na, unknown},
                   {{x, IotaTensor({3, 4})}, {u, {5.f, 6.f, 7.f, 8.f}}});
  ExpectTensor<float>(out[0], {3}, {1, 5, 9});
  ExpectTensor<float>(out[1], {2, 4}, {4, 5, 6, 7, 8, 9, 10, 11});
  ExpectTensor<float>(out[2], {1, 3, 2}, {0, 2, 4, 6, 8, 10});
  ExpectTensor<float>(out[3], {2}, {6, 7});
}

TEST(StridedSliceTest, LargeStridedCopy) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({200, 300}));
  auto s = SS(root, x, {1, 299}, {200, 0}, {3, -7}, SS::EndMask(2));
  Tensor out = RunOk(root, {s})[0];
  // Rows 1, 4, ..., 199 (67 rows); columns 299, 292, ..., 5 (43 columns).
  ASSERT_EQ(out.shape(), TensorShape({67, 43}));
  for (int r = 0; r < 67; ++r) {
    for (int c = 0; c < 43; ++c) {
      ASSERT_EQ(out.data<float>()[r * 43 + c], (1 + 3 * r) * 300 + (299 - 7 * c));
    }
  }
}

TEST(StridedSliceTest, Errors) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({3, 4}));
  auto b0 = ops::Const(root, {0});
  auto e1 = ops::Const(root, {1});
  SS(root.WithOpName("zero"), x, b0, e1, b0);
  ExpectInvalid(root.status(), {"strides[0] must be non-zero", "'zero'",
                                "[3,4], [1], [1], [1]"});
  Scope root2 = Scope::NewRootScope();
  SS(root2, ops::Const(root2, IotaTensor({3, 4})), {0, 5}, {0, 6}, {1, 1},
     SS::ShrinkAxisMask(2));
  ExpectInvalid(root2.status(), {"slice index 5 of dimension 1 out of bounds"});
  Scope root3 = Scope::NewRootScope();
  SS(root3, ops::Const(root3, IotaTensor({3, 4})), {0, 0}, {0, 0}, {1, 1},
     SS::EllipsisMask(3));
  ExpectInvalid(root3.status(), {"Multiple ellipses in slice spec not allowed"});
  Scope root4 = Scope::NewRootScope();
  SS(root4, ops::Const(root4, IotaTensor({3})), {0, 0}, {1, 1}, {1, 1});
  ExpectInvalid(root4.status(), {"Index out of range using input dim 1"});
  Scope root5 = Scope::NewRootScope();
  auto b = ops::Placeholder(root5, DT_INT32, ops::Placeholder::Shape({1}));
  auto one = ops::Const(root5, {1});
  auto s = SS(root5.WithOpName("dyn"), ops::Const(root5, IotaTensor({3})), b, one,
              one, SS::ShrinkAxisMask(1));
  ExpectInvalid(RunStatus(root5, {s}, {{b, {-4}}}),
                {"slice index -4 of dimension 0 out of bounds", "'dyn'"});
}

// ----------------------------------------------------------------- OneHot

TEST(OneHotTest, LastAxisWithOutOfRangeIndices) {
  Scope root = Scope::NewRootScope();
  auto h = ops::OneHot(root, {0, 2, -1, 5}, 3, 1.f, 0.f);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(h.output.shape(), TensorShape({4, 3}));
  ExpectTensor<float>(RunOk(root, {h})[0], {4, 3},
                      {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
}

TEST(OneHotTest, AxesIndexTypesAndValues) {
  Scope root = Scope::NewRootScope();
  auto idx = ops::Const(root, {{int64_t{0}, int64_t{1}}, {int64_t{1}, int64_t{1}}});
  auto a0 = ops::OneHot(root, {1, 0}, 2, 5, -5, ops::OneHot::Axis(0));
  auto a1 = ops::OneHot(root, idx, 2, half(2), half(0), ops::OneHot::Axis(1));
  auto u8 = ops::OneHot(root, ops::Const(root, Tensor::Vector<uint8_t>({1})), 2,
                        true, false);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(a1.output.shape(), TensorShape({2, 2, 2}));
  auto out = RunOk(root, {a0, a1, u8});
  ExpectTensor<int32_t>(out[0], {2, 2}, {-5, 5, 5, -5});
  // a1[i, d, j] = (idx[i, j] == d) ? 2 : 0.
  ExpectTensor<half>(out[1], {2, 2, 2},
                     {half(2), half(0), half(0), half(2),
                      half(0), half(0), half(2), half(2)});
  ExpectTensor<bool>(out[2], {1, 2}, {false, true});
}

TEST(OneHotTest, Errors) {
  Scope root = Scope::NewRootScope();
  ops::OneHot(root, {0, 1}, -1, 1.f, 0.f);
  ExpectInvalid(root.status(), {"depth must be non-negative, got: -1"});
  Scope root2 = Scope::NewRootScope();
  ops::OneHot(root2, {0, 1}, 3, 1.f, 0.f, ops::OneHot::Axis(2));
  ExpectInvalid(root2.status(), {"Expected axis to be -1 or between [0, 2). "
                                 "But received: 2"});
  Scope root3 = Scope::NewRootScope();
  auto d = ops::Placeholder(root3, DT_INT32, ops::Placeholder::Shape({}));
  auto idx = ops::Const(root3, {0, 1});
  auto on = ops::Const(root3, 1.f);
  auto off = ops::Const(root3, 0.f);
  auto h = ops::OneHot(root3.WithOpName("oh"), idx, d, on, off);
  ASSERT_TRUE(root3.ok()) << root3.status();
  EXPECT_EQ(h.output.shape(), TensorShape({2, -1}));
  ExpectInvalid(RunStatus(root3, {h}, {{d, -2}}),
                {"depth must be non-negative, got: -2", "'oh'"});
}

}  // namespace
}  // namespace tensorflow_ipu
