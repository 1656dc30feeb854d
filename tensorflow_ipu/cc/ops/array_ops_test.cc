// Array ops run through ClientSession: Reshape, Transpose, ExpandDims,
// Squeeze, Shape, Size, Rank, Fill, ZerosLike, OnesLike, Concat, Tile, Stack.
// (Slicing and OneHot: array_ops_slice_test.cc.)
#include "Eigen/Core"
#include "tensorflow_ipu/cc/ops/array_ops.h"

#include "gtest/gtest.h"
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

// ---------------------------------------------------------------- Reshape

TEST(ReshapeTest, ReshapesWithInferredDim) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  auto r = ops::Reshape(root, x, {3, -1});
  auto r64 = ops::Reshape(root, x, Input(std::initializer_list<int64_t>{6}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(r.output.shape(), TensorShape({3, 2}));
  EXPECT_EQ(r64.output.shape(), TensorShape({6}));
  auto out = RunOk(root, {r, r64});
  ExpectTensor<float>(out[0], {3, 2}, {1, 2, 3, 4, 5, 6});
  ExpectTensor<float>(out[1], {6}, {1, 2, 3, 4, 5, 6});
}

TEST(ReshapeTest, ScalarAndEmpty) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::Vector<int32_t>({7}));
  auto scalar = ops::Reshape(root, x, Tensor::Vector<int32_t>({}));
  auto empty = ops::Const(root, Tensor(DT_FLOAT, TensorShape({0, 3})));
  auto e = ops::Reshape(root, empty, {-1, 3, 1});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(scalar.output.shape(), TensorShape());
  EXPECT_EQ(e.output.shape(), TensorShape({0, 3, 1}));
  auto out = RunOk(root, {scalar, e});
  ExpectTensor<int32_t>(out[0], {}, {7});
  ExpectTensor<float>(out[1], {0, 3, 1}, {});
}

TEST(ReshapeTest, PartialShapesAndFedShape) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 3}));
  auto s = ops::Placeholder(root, DT_INT64, ops::Placeholder::Shape({2}));
  auto r = ops::Reshape(root, x, {-1, 2});
  auto r2 = ops::Reshape(root, x, s);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(r.output.shape(), TensorShape({-1, 2}));
  EXPECT_EQ(r2.output.shape(), TensorShape({-1, -1}));
  auto out = RunOk(root, {r, r2},
                   {{x, IotaTensor({4, 3})}, {s, Tensor::Vector<int64_t>({2, 6})}});
  ExpectTensor<float>(out[0], {6, 2}, Iota<float>(12));
  ExpectTensor<float>(out[1], {2, 6}, Iota<float>(12));
}

TEST(ReshapeTest, StaticErrorsNameNodeAndShapes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  auto shape = ops::Const(root, {4, 2});
  ops::Reshape(root.WithOpName("bad"), x, shape);
  ExpectInvalid(root.status(),
                {"Cannot reshape a tensor with 6 elements to shape [4,2] (8 "
                 "elements)",
                 "'bad'", "[2,3], [2]"});

  Scope root2 = Scope::NewRootScope();
  auto y = ops::Const(root2, {1.f, 2.f});
  ops::Reshape(root2, y, {-1, -1});
  ExpectInvalid(root2.status(), {"Only one input size may be -1, not both 0 and 1"});

  Scope root3 = Scope::NewRootScope();
  ops::Reshape(root3, ops::Const(root3, Tensor(DT_FLOAT, TensorShape({0, 2}))),
               {0, -1});
  ExpectInvalid(root3.status(), {"cannot infer the missing input size"});
}

TEST(ReshapeTest, RuntimeErrorForFedShape) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 3}));
  auto shape = ops::Const(root, {4, -1});
  auto r = ops::Reshape(root.WithOpName("r"), x, shape);
  ExpectInvalid(RunStatus(root, {r}, {{x, IotaTensor({2, 3})}}),
                {"Input to reshape is a tensor with 6 values, but the "
                 "requested shape requires a multiple of 4",
                 "'r'"});
}

// -------------------------------------------------------------- Transpose

// The transpose of a row-major `dims` array of 0..n-1 by `perm`, by index
// arithmetic.
std::vector<float> Transposed(const std::vector<int64_t>& dims,
                              const std::vector<int>& perm) {
  const int rank = static_cast<int>(dims.size());
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> in_stride(rank);
  int64_t acc = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_stride[d] = acc;
    acc *= dims[d];
  }
  std::vector<float> out(n);
  for (int64_t k = 0; k < n; ++k) {
    // Decompose k in the output dims.
    int64_t rem = k, offset = 0;
    for (int i = rank - 1; i >= 0; --i) {
      const int64_t od = dims[perm[i]];
      offset += (rem % od) * in_stride[perm[i]];
      rem /= od;
    }
    out[k] = static_cast<float>(offset);
  }
  return out;
}

TensorShape PermutedShape(const std::vector<int64_t>& dims,
                          const std::vector<int>& perm) {
  TensorShape s;
  for (int p : perm) s.AddDim(dims[p]);
  return s;
}

TEST(TransposeTest, Matrix) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  auto t = ops::Transpose(root, x, {1, 0});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(t.output.shape(), TensorShape({3, 2}));
  ExpectTensor<float>(RunOk(root, {t})[0], {3, 2}, {1, 4, 2, 5, 3, 6});
}

TEST(TransposeTest, HigherRanksAgainstIndexArithmetic) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int>>> cases = {
      {{2, 3, 4}, {2, 0, 1}},
      {{2, 3, 4}, {0, 2, 1}},
      {{1, 3, 1, 2}, {3, 1, 0, 2}},     // size-1 dims are dropped
      {{2, 3, 4, 5}, {0, 1, 3, 2}},     // leading dims merge
      {{2, 3, 2, 3, 2}, {4, 2, 0, 3, 1}},
      {{2, 3, 2, 3, 2, 3}, {5, 4, 3, 2, 1, 0}},  // rank 6: generic path
      {{300, 200}, {1, 0}},             // large: thread pool
      {{2, 3, 4}, {0, 1, 2}},           // identity
  };
  for (const auto& [dims, perm] : cases) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Const(root, IotaTensor(TensorShape(dims)));
    auto t = ops::Transpose(root, x, Input::Initializer(Tensor::Vector<int32_t>(
                                         std::vector<int32_t>(perm.begin(), perm.end()))));
    ExpectTensor<float>(RunOk(root, {t})[0], PermutedShape(dims, perm),
                        Transposed(dims, perm));
  }
}

TEST(TransposeTest, OtherDtypes) {
  Scope root = Scope::NewRootScope();
  auto h = ops::Const(root, Tensor::FromVector<half>({half(1), half(2), half(3), half(4)}, {2, 2}));
  auto i64 = ops::Const(root, Tensor::FromVector<int64_t>({1, 2, 3}, {1, 3}));
  auto b = ops::Const(root, {{true, false}, {false, false}});
  auto th = ops::Transpose(root, h, {1, 0});
  auto ti = ops::Transpose(root, i64, Input(std::initializer_list<int64_t>{1, 0}));
  auto tb = ops::Transpose(root, b, {1, 0});
  auto out = RunOk(root, {th, ti, tb});
  ExpectTensor<half>(out[0], {2, 2}, {half(1), half(3), half(2), half(4)});
  ExpectTensor<int64_t>(out[1], {3, 1}, {1, 2, 3});
  ExpectTensor<bool>(out[2], {2, 2}, {true, false, false, false});
}

TEST(TransposeTest, Errors) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<float>({1, 2}, {1, 2}));
  auto perm = ops::Const(root, {0, 0});
  ops::Transpose(root.WithOpName("dup"), x, perm);
  ExpectInvalid(root.status(), {"0 is duplicated in perm [0,0]", "'dup'", "[1,2], [2]"});

  Scope root2 = Scope::NewRootScope();
  ops::Transpose(root2, ops::Const(root2, Tensor::FromVector<float>({1, 2}, {1, 2})), {0, 1, 2});
  ExpectInvalid(root2.status(), {"transpose expects a vector of size 2. But "
                                 "input(1) is a vector of size 3"});

  Scope root3 = Scope::NewRootScope();
  auto p = ops::Placeholder(root3, DT_INT32, ops::Placeholder::Shape({2}));
  auto t = ops::Transpose(root3.WithOpName("t"), ops::Const(root3, Tensor::FromVector<float>({1, 2}, {1, 2})), p);
  ASSERT_TRUE(root3.ok()) << root3.status();
  EXPECT_EQ(t.output.shape(), TensorShape({-1, -1}));
  ExpectInvalid(RunStatus(root3, {t}, {{p, {0, 2}}}),
                {"perm[1] = 2 is out of range [0 .. 2)", "'t'"});
}

// ----------------------------------------------------- ExpandDims, Squeeze

TEST(ExpandDimsTest, PositiveNegativeAndScalar) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {{1, 2, 3}, {4, 5, 6}});
  auto e0 = ops::ExpandDims(root, x, 0);
  auto e1 = ops::ExpandDims(root, x, 1);
  auto em1 = ops::ExpandDims(root, x, -1);
  auto em3 = ops::ExpandDims(root, x, Input(int64_t{-3}));
  auto s = ops::ExpandDims(root, ops::Const(root, 5.f), 0);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(e0.output.shape(), TensorShape({1, 2, 3}));
  EXPECT_EQ(e1.output.shape(), TensorShape({2, 1, 3}));
  EXPECT_EQ(em1.output.shape(), TensorShape({2, 3, 1}));
  EXPECT_EQ(em3.output.shape(), TensorShape({1, 2, 3}));
  auto out = RunOk(root, {e0, e1, em1, em3, s});
  const std::vector<int32_t> v = {1, 2, 3, 4, 5, 6};
  ExpectTensor<int32_t>(out[0], {1, 2, 3}, v);
  ExpectTensor<int32_t>(out[1], {2, 1, 3}, v);
  ExpectTensor<int32_t>(out[2], {2, 3, 1}, v);
  ExpectTensor<int32_t>(out[3], {1, 2, 3}, v);
  ExpectTensor<float>(out[4], {1}, {5});
}

TEST(ExpandDimsTest, OutOfRange) {
  Scope root = Scope::NewRootScope();
  ops::ExpandDims(root, ops::Const(root, IotaTensor({1, 1})), 3);
  ExpectInvalid(root.status(),
                {"Tried to expand dim index 3 for tensor with 2 dimensions",
                 "[1,1], []"});
}

TEST(SqueezeTest, AllAndListedDims) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({1, 2, 1, 3}));
  auto all = ops::Squeeze(root, x);
  auto d2 = ops::Squeeze(root, x, ops::Squeeze::Axis({2}));
  auto dm4 = ops::Squeeze(root, x, ops::Squeeze::Axis({-4, 2}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(all.output.shape(), TensorShape({2, 3}));
  EXPECT_EQ(d2.output.shape(), TensorShape({1, 2, 3}));
  EXPECT_EQ(dm4.output.shape(), TensorShape({2, 3}));
  auto out = RunOk(root, {all, d2, dm4});
  ExpectTensor<float>(out[0], {2, 3}, Iota<float>(6));
  ExpectTensor<float>(out[1], {1, 2, 3}, Iota<float>(6));
  ExpectTensor<float>(out[2], {2, 3}, Iota<float>(6));
}

TEST(SqueezeTest, PartialShapes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 1, 3}));
  auto all = ops::Squeeze(root, x);
  auto d1 = ops::Squeeze(root.WithOpName("sq"), x, ops::Squeeze::Axis({0, 1}));
  EXPECT_TRUE(all.output.shape().unknown_rank());
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(d1.output.shape(), TensorShape({3}));
  auto out = RunOk(root, {all, d1}, {{x, IotaTensor({1, 1, 3})}});
  ExpectTensor<float>(out[0], {3}, {0, 1, 2});
  ExpectTensor<float>(out[1], {3}, {0, 1, 2});
  ExpectInvalid(RunStatus(root, {d1}, {{x, IotaTensor({2, 1, 3})}}),
                {"Can not squeeze dim[0], expected a dimension of 1, got 2",
                 "'sq'"});
}

TEST(SqueezeTest, StaticErrors) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({1, 2}));
  ops::Squeeze(root, x, ops::Squeeze::Axis({1}));
  ExpectInvalid(root.status(),
                {"Can not squeeze dim[1], expected a dimension of 1, got 2"});
  Scope root2 = Scope::NewRootScope();
  ops::Squeeze(root2, ops::Const(root2, IotaTensor({1, 2})), ops::Squeeze::Axis({2}));
  ExpectInvalid(root2.status(),
                {"Tried to squeeze dim index 2 for tensor with 2 dimensions"});
}

// ------------------------------------------------------- Shape, Size, Rank

TEST(ShapeOpsTest, StaticAndFedShapes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 3}));
  auto shape = ops::Shape(root, x);
  auto shape64 = ops::Shape(root, x, ops::Shape::OutType(DT_INT64));
  auto size = ops::Size(root, x);
  auto size64 = ops::Size(root, x, ops::Size::OutType(DT_INT64));
  auto rank = ops::Rank(root, x);
  auto u = ops::Placeholder(root, DT_INT32);
  auto ushape = ops::Shape(root, u);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(shape.output.shape(), TensorShape({2}));
  EXPECT_EQ(shape.output.type(), DT_INT32);
  EXPECT_EQ(shape64.output.type(), DT_INT64);
  EXPECT_EQ(size.output.shape(), TensorShape());
  EXPECT_EQ(rank.output.shape(), TensorShape());
  EXPECT_EQ(ushape.output.shape(), TensorShape({-1}));
  auto out = RunOk(root, {shape, shape64, size, size64, rank, ushape},
                   {{x, IotaTensor({4, 3})}, {u, 7}});
  ExpectTensor<int32_t>(out[0], {2}, {4, 3});
  ExpectTensor<int64_t>(out[1], {2}, {4, 3});
  ExpectTensor<int32_t>(out[2], {}, {12});
  ExpectTensor<int64_t>(out[3], {}, {12});
  ExpectTensor<int32_t>(out[4], {}, {2});
  ExpectTensor<int32_t>(out[5], {0}, {});
}

// ------------------------------------------------ Fill, ZerosLike, OnesLike

TEST(FillTest, ValuesAndDtypes) {
  Scope root = Scope::NewRootScope();
  auto f = ops::Fill(root, {2, 3}, 7.f);
  auto f64 = ops::Fill(root, Input(std::initializer_list<int64_t>{2}), half(1.5f));
  auto fi = ops::Fill(root, {3}, int64_t{-4});
  auto fb = ops::Fill(root, {2, 0}, true);
  auto big = ops::Fill(root, {200, 100}, 2.5f);  // the thread-pool path
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(f.output.shape(), TensorShape({2, 3}));
  auto out = RunOk(root, {f, f64, fi, fb, big});
  ExpectTensor<float>(out[0], {2, 3}, std::vector<float>(6, 7.f));
  ExpectTensor<half>(out[1], {2}, {half(1.5f), half(1.5f)});
  ExpectTensor<int64_t>(out[2], {3}, {-4, -4, -4});
  ExpectTensor<bool>(out[3], {2, 0}, {});
  ExpectTensor<float>(out[4], {200, 100}, std::vector<float>(20000, 2.5f));
}

TEST(FillTest, Errors) {
  Scope root = Scope::NewRootScope();
  ops::Fill(root, {2, -1}, 1.f);
  ExpectInvalid(root.status(), {"Fill dimensions must be >= 0, but dims[1] is -1"});
  Scope root2 = Scope::NewRootScope();
  ops::Fill(root2, {2}, {1.f, 2.f});
  ExpectInvalid(root2.status(), {"Shape must be rank 0 but is rank 1", "'value'"});
  Scope root3 = Scope::NewRootScope();
  auto d = ops::Placeholder(root3, DT_INT32, ops::Placeholder::Shape({-1}));
  auto one = ops::Const(root3, 1.f);
  auto f = ops::Fill(root3.WithOpName("fill"), d, one);
  ASSERT_TRUE(root3.ok()) << root3.status();
  EXPECT_EQ(f.output.shape(), TensorShape::Unknown());
  ExpectInvalid(RunStatus(root3, {f}, {{d, {3, -2}}}),
                {"Fill dimensions must be >= 0, but dims[1] is -2", "'fill'"});
}

TEST(ZerosOnesLikeTest, Dtypes) {
  Scope root = Scope::NewRootScope();
  auto f = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
  auto i = ops::Const(root, {5, 6, 7});
  auto b = ops::Const(root, {true, false});
  auto h = ops::Const(root, Tensor::Vector<half>({half(3)}));
  auto out = RunOk(root, {ops::ZerosLike(root, f), ops::OnesLike(root, f),
                          ops::ZerosLike(root, i), ops::OnesLike(root, i),
                          ops::ZerosLike(root, b), ops::OnesLike(root, b),
                          ops::OnesLike(root, h)});
  ExpectTensor<float>(out[0], {2, 2}, {0, 0, 0, 0});
  ExpectTensor<float>(out[1], {2, 2}, {1, 1, 1, 1});
  ExpectTensor<int32_t>(out[2], {3}, {0, 0, 0});
  ExpectTensor<int32_t>(out[3], {3}, {1, 1, 1});
  ExpectTensor<bool>(out[4], {2}, {false, false});
  ExpectTensor<bool>(out[5], {2}, {true, true});
  ExpectTensor<half>(out[6], {1}, {half(1)});
}

// ----------------------------------------------------------------- Concat

TEST(ConcatTest, AlongEachAxis) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
  // (Nested one-element braces would elide to a vector: spell the shapes.)
  auto b = ops::Const(root, Tensor::FromVector<float>({5, 6}, {1, 2}));
  auto c = ops::Const(root, Tensor::FromVector<float>({7, 8}, {2, 1}));
  auto c0 = ops::Concat(root, {a, b}, 0);
  auto c1 = ops::Concat(root, {a, c, a}, 1);
  auto cm1 = ops::Concat(root, {c, a}, Input(int64_t{-1}));
  auto one = ops::Concat(root, {a}, 0);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(c0.output.shape(), TensorShape({3, 2}));
  EXPECT_EQ(c1.output.shape(), TensorShape({2, 5}));
  EXPECT_EQ(c0.node()->name(), "Concat");
  auto out = RunOk(root, {c0, c1, cm1, one});
  ExpectTensor<float>(out[0], {3, 2}, {1, 2, 3, 4, 5, 6});
  ExpectTensor<float>(out[1], {2, 5}, {1, 2, 7, 1, 2, 3, 4, 8, 3, 4});
  ExpectTensor<float>(out[2], {2, 3}, {7, 1, 2, 8, 3, 4});
  ExpectTensor<float>(out[3], {2, 2}, {1, 2, 3, 4});
}

TEST(ConcatTest, Rank3EmptyAndDtypes) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, IotaTensor({2, 1, 2}));
  auto b = ops::Const(root, Tensor::FromVector(Iota<float>(4, 10.f), TensorShape({2, 2, 1})));
  auto bb = ops::Reshape(root, b, {2, 1, 2});
  auto mid = ops::Concat(root, {a, bb}, 1);
  auto empty = ops::Const(root, Tensor(DT_FLOAT, TensorShape({2, 0, 2})));
  auto with_empty = ops::Concat(root, {empty, a, empty}, 1);
  auto h = ops::Concat(root, {ops::Const(root, Tensor::Vector<half>({half(1)})), ops::Const(root, Tensor::Vector<half>({half(2), half(3)}))}, 0);
  auto b8 = ops::Concat(root, {ops::Const(root, {true}), ops::Const(root, {false})}, 0);
  auto out = RunOk(root, {mid, with_empty, h, b8});
  ExpectTensor<float>(out[0], {2, 2, 2}, {0, 1, 10, 11, 2, 3, 12, 13});
  ExpectTensor<float>(out[1], {2, 1, 2}, {0, 1, 2, 3});
  ExpectTensor<half>(out[2], {3}, {half(1), half(2), half(3)});
  ExpectTensor<bool>(out[3], {2}, {true, false});
}

TEST(ConcatTest, LargeUsesThreadPoolAndStaysExact) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, IotaTensor({1000, 300}));
  auto b = ops::Const(root, IotaTensor({1000, 200}));
  auto c = ops::Concat(root, {a, b}, 1);
  Tensor out = RunOk(root, {c})[0];
  ASSERT_EQ(out.shape(), TensorShape({1000, 500}));
  bool ok = true;
  for (int64_t r = 0; r < 1000 && ok; ++r) {
    for (int64_t k = 0; k < 500 && ok; ++k) {
      const float want = k < 300 ? r * 300 + k : r * 200 + (k - 300);
      ok = out.data<float>()[r * 500 + k] == want;
      EXPECT_TRUE(ok) << "at " << r << "," << k;
    }
  }
}

TEST(ConcatTest, PartialShapeInference) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 2}));
  auto b = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({3, -1}));
  auto u = ops::Placeholder(root, DT_FLOAT);
  auto ax = ops::Placeholder(root, DT_INT32, ops::Placeholder::Shape({}));
  EXPECT_EQ(ops::Concat(root, {a, b}, 0).output.shape(), TensorShape({-1, 2}));
  EXPECT_EQ(ops::Concat(root, {a, b}, 1).output.shape(), TensorShape({3, -1}));
  EXPECT_EQ(ops::Concat(root, {a, u}, 0).output.shape(), TensorShape({-1, 2}));
  EXPECT_EQ(ops::Concat(root, {a, b}, ax).output.shape(), TensorShape({-1, -1}));
  EXPECT_TRUE(root.ok()) << root.status();
}

TEST(ConcatTest, Errors) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, IotaTensor({2, 3}));
  auto b = ops::Const(root, IotaTensor({3, 3}));
  auto one = ops::Const(root, 1);
  ops::Concat(root.WithOpName("cat"), {a, b}, one);
  ExpectInvalid(root.status(),
                {"Dimension 0 in both shapes must be equal, but are 2 and 3",
                 "'cat'", "[2,3], [3,3], []"});

  Scope root2 = Scope::NewRootScope();
  ops::Concat(root2, {ops::Const(root2, {1.f}), ops::Const(root2, {2.f})}, 1);
  ExpectInvalid(root2.status(), {"Expected concatenating dimensions in the "
                                 "range [-1, 1), but got 1"});

  Scope root3 = Scope::NewRootScope();
  ops::Concat(root3, {ops::Const(root3, 1.f), ops::Const(root3, 2.f)}, 0);
  ExpectInvalid(root3.status(), {"Can't concatenate scalars"});

  Scope root4 = Scope::NewRootScope();
  auto p = ops::Placeholder(root4, DT_FLOAT, ops::Placeholder::Shape({-1, 2}));
  auto q = ops::Placeholder(root4, DT_FLOAT, ops::Placeholder::Shape({-1, 2}));
  auto axis = ops::Const(root4, 1);
  auto c = ops::Concat(root4.WithOpName("c"), {p, q}, axis);
  ExpectInvalid(RunStatus(root4, {c}, {{p, IotaTensor({2, 2})}, {q, IotaTensor({3, 2})}}),
                {"ConcatOp : Dimensions of inputs should match: shape[0] = "
                 "[2,2] vs. shape[1] = [3,2]",
                 "'c'"});
}

// ------------------------------------------------------------------- Tile

TEST(TileTest, Values) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {{1, 2, 3}, {4, 5, 6}});
  auto t21 = ops::Tile(root, x, {2, 1});
  auto t12 = ops::Tile(root, x, Input(std::initializer_list<int64_t>{1, 2}));
  auto t0 = ops::Tile(root, x, {0, 2});
  auto v = ops::Tile(root, ops::Const(root, Tensor::Vector<half>({half(1), half(2)})), {3});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(t21.output.shape(), TensorShape({4, 3}));
  EXPECT_EQ(t0.output.shape(), TensorShape({0, 6}));
  auto out = RunOk(root, {t21, t12, t0, v});
  ExpectTensor<int32_t>(out[0], {4, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
  ExpectTensor<int32_t>(out[1], {2, 6}, {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
  ExpectTensor<int32_t>(out[2], {0, 6}, {});
  ExpectTensor<half>(out[3], {6}, {half(1), half(2), half(1), half(2), half(1), half(2)});
}

TEST(TileTest, Rank5GenericPath) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, IotaTensor({1, 2, 1, 1, 2}));
  auto t = ops::Tile(root, x, {2, 1, 1, 2, 1});
  // Output [2,2,1,2,2]: element (a,b,0,d,e) = x(0,b,0,0,e) = 2b+e.
  std::vector<float> want;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int d = 0; d < 2; ++d)
        for (int e = 0; e < 2; ++e) want.push_back(2 * b + e);
  ExpectTensor<float>(RunOk(root, {t})[0], {2, 2, 1, 2, 2}, want);
}

TEST(TileTest, Errors) {
  Scope root = Scope::NewRootScope();
  ops::Tile(root, ops::Const(root, {1.f}), {-1});
  ExpectInvalid(root.status(), {"Expected multiples[0] >= 0, but got -1"});
  Scope root2 = Scope::NewRootScope();
  ops::Tile(root2, ops::Const(root2, {1.f}), {1, 2});
  ExpectInvalid(root2.status(), {"Expected multiples argument to be a vector "
                                 "of length 1 but got length 2"});
}

// ------------------------------------------------------------------ Stack

TEST(StackTest, AxesAndScalars) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {1, 2, 3});
  auto b = ops::Const(root, {4, 5, 6});
  auto s0 = ops::Stack(root, {a, b});
  auto s1 = ops::Stack(root, {a, b}, ops::Stack::Axis(1));
  auto sm1 = ops::Stack(root, {a, b}, ops::Stack::Axis(-1));
  auto scalars = ops::Stack(root, {ops::Const(root, 1.f), ops::Const(root, 2.f),
                                   ops::Const(root, 3.f)});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(s0.output.shape(), TensorShape({2, 3}));
  EXPECT_EQ(s1.output.shape(), TensorShape({3, 2}));
  EXPECT_EQ(s0.node()->name(), "Stack");
  EXPECT_EQ(s0.node()->op(), "Pack");
  auto out = RunOk(root, {s0, s1, sm1, scalars});
  ExpectTensor<int32_t>(out[0], {2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectTensor<int32_t>(out[1], {3, 2}, {1, 4, 2, 5, 3, 6});
  ExpectTensor<int32_t>(out[2], {3, 2}, {1, 4, 2, 5, 3, 6});
  ExpectTensor<float>(out[3], {3}, {1, 2, 3});
}

TEST(StackTest, Errors) {
  Scope root = Scope::NewRootScope();
  ops::Stack(root, {ops::Const(root, {1.f, 2.f}), ops::Const(root, {1.f})});
  ExpectInvalid(root.status(), {"Shapes of all inputs must match: "
                                "values[0].shape = [2] != values[1].shape = [1]"});
  Scope root2 = Scope::NewRootScope();
  ops::Stack(root2, {ops::Const(root2, {1.f})}, ops::Stack::Axis(2));
  ExpectInvalid(root2.status(), {"Invalid axis: 2; must be in [-2,2)"});
  Scope root3 = Scope::NewRootScope();
  auto p = ops::Placeholder(root3, DT_FLOAT);
  auto s = ops::Stack(root3.WithOpName("st"), {p, ops::Const(root3, {1.f})});
  ExpectInvalid(RunStatus(root3, {s}, {{p, {1.f, 2.f}}}),
                {"Shapes of all inputs must match", "'st'"});
}

}  // namespace
}  // namespace tensorflow_ipu
