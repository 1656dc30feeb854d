// NN ops run through ClientSession: Softmax, LogSoftmax and the softmax
// cross-entropy losses, checked against the formulas evaluated in double.
#include "Eigen/Core"
#include "tensorflow_ipu/cc/ops/nn_ops.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/array_ops.h"
#include "tensorflow_ipu/cc/ops/ops_test_util.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"

namespace tensorflow_ipu {
namespace {

using test::ExpectInvalid;
using test::ExpectNear;
using test::RunOk;
using test::RunStatus;

using Rows = std::vector<std::vector<double>>;

std::vector<double> SoftmaxRow(const std::vector<double>& x) {
  double m = x[0];
  for (double v : x) m = std::max(m, v);
  double sum = 0;
  for (double v : x) sum += std::exp(v - m);
  std::vector<double> out;
  for (double v : x) out.push_back(std::exp(v - m) / sum);
  return out;
}

double LogSumExp(const std::vector<double>& x) {
  double m = x[0];
  for (double v : x) m = std::max(m, v);
  double sum = 0;
  for (double v : x) sum += std::exp(v - m);
  return m + std::log(sum);
}

std::vector<double> Flatten(const Rows& rows) {
  std::vector<double> out;
  for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}

template <typename T>
Tensor MatrixOf(const Rows& rows) {
  std::vector<T> v;
  for (double x : Flatten(rows)) v.push_back(static_cast<T>(x));
  return Tensor::FromVector(
      v, TensorShape({static_cast<int64_t>(rows.size()),
                      static_cast<int64_t>(rows[0].size())}));
}

const Rows kLogits = {{1, 2, 3}, {1, 1, 1}, {1000, 1001, 1002}, {-5, 0, 7.5}};

// ---------------------------------------------------------------- Softmax

TEST(SoftmaxTest, FloatRowsIncludingLargeValues) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, MatrixOf<float>(kLogits));
  auto sm = ops::Softmax(root, x);
  auto lsm = ops::LogSoftmax(root, x);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(sm.output.shape(), TensorShape({4, 3}));
  Rows want_sm, want_lsm;
  for (const auto& r : kLogits) {
    want_sm.push_back(SoftmaxRow(r));
    std::vector<double> l;
    for (double v : r) l.push_back(v - LogSumExp(r));
    want_lsm.push_back(l);
  }
  auto out = RunOk(root, {sm, lsm});
  ExpectNear<float>(out[0], {4, 3}, Flatten(want_sm), 1e-6);
  ExpectNear<float>(out[1], {4, 3}, Flatten(want_lsm), 1e-5);
  // Row 2 is row 0 shifted by 999: the same probabilities, no overflow.
  for (int j = 0; j < 3; ++j) {
    EXPECT_FLOAT_EQ(out[0].data<float>()[6 + j], out[0].data<float>()[j]);
  }
}

TEST(SoftmaxTest, HalfDoubleAndRanks) {
  Scope root = Scope::NewRootScope();
  auto h = ops::Softmax(root, ops::Const(root, MatrixOf<half>(kLogits)));
  auto d = ops::LogSoftmax(root, ops::Const(root, MatrixOf<double>(kLogits)));
  auto v = ops::Softmax(root, ops::Const(root, {0.f, std::log(3.f)}));
  auto r3 = ops::Softmax(
      root, ops::Reshape(root, ops::Const(root, MatrixOf<float>(kLogits)), {2, 2, 3}));
  auto out = RunOk(root, {h, d, v, r3});
  Rows want_sm, want_lsm;
  for (const auto& r : kLogits) {
    want_sm.push_back(SoftmaxRow(r));
    std::vector<double> l;
    for (double x : r) l.push_back(x - LogSumExp(r));
    want_lsm.push_back(l);
  }
  ExpectNear<half>(out[0], {4, 3}, Flatten(want_sm), 1e-3);
  ExpectNear<double>(out[1], {4, 3}, Flatten(want_lsm), 1e-12);
  ExpectNear<float>(out[2], {2}, {0.25, 0.75}, 1e-6);
  ExpectNear<float>(out[3], {2, 2, 3}, Flatten(want_sm), 1e-6);
}

TEST(SoftmaxTest, ManyRowsOnThreadPool) {
  Scope root = Scope::NewRootScope();
  const int64_t rows = 3000, cols = 10;
  Tensor x(DT_FLOAT, TensorShape({rows, cols}));
  for (int64_t i = 0; i < rows * cols; ++i) x.data<float>()[i] = (i % 17) * 0.25f;
  auto sm = ops::Softmax(root, ops::Const(root, x));
  Tensor out = RunOk(root, {sm})[0];
  ASSERT_EQ(out.shape(), TensorShape({rows, cols}));
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> row;
    for (int64_t c = 0; c < cols; ++c) row.push_back(x.data<float>()[r * cols + c]);
    const std::vector<double> want = SoftmaxRow(row);
    for (int64_t c = 0; c < cols; ++c) {
      ASSERT_NEAR(out.data<float>()[r * cols + c], want[c], 1e-6) << r << "," << c;
    }
  }
}

TEST(SoftmaxTest, EmptyAndErrors) {
  Scope root = Scope::NewRootScope();
  auto e = ops::Softmax(root, ops::Const(root, Tensor(DT_FLOAT, TensorShape({0, 3}))));
  ExpectNear<float>(RunOk(root, {e})[0], {0, 3}, {}, 0);

  Scope root2 = Scope::NewRootScope();
  ops::Softmax(root2.WithOpName("sm"), ops::Const(root2, 1.f));
  ExpectInvalid(root2.status(), {"logits must have at least one dimension",
                                 "'sm'", "with input shapes: []"});

  Scope root3 = Scope::NewRootScope();
  ops::Softmax(root3, ops::Const(root3, {1, 2}));
  ExpectInvalid(root3.status(), {"Value for attr 'T' of int32 is not in the list"});

  Scope root4 = Scope::NewRootScope();
  auto p = ops::Placeholder(root4, DT_FLOAT);
  auto sm = ops::LogSoftmax(root4.WithOpName("lsm"), p);
  ExpectInvalid(RunStatus(root4, {sm}, {{p, 2.f}}),
                {"logits must have at least one dimension", "'lsm'"});
}

// ------------------------------------------------------ Sparse cross-entropy

TEST(SparseXentTest, LossAndBackprop) {
  Scope root = Scope::NewRootScope();
  const std::vector<int> labels = {2, 0, 1, 0};
  auto x = ops::Const(root, MatrixOf<float>(kLogits));
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, x, {2, 0, 1, 0});
  auto xent64 = ops::SparseSoftmaxCrossEntropyWithLogits(
      root, x, Input(std::initializer_list<int64_t>{2, 0, 1, 0}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(xent.loss.shape(), TensorShape({4}));
  EXPECT_EQ(xent.backprop.shape(), TensorShape({4, 3}));
  std::vector<double> want_loss;
  Rows want_bp;
  for (size_t i = 0; i < kLogits.size(); ++i) {
    want_loss.push_back(LogSumExp(kLogits[i]) - kLogits[i][labels[i]]);
    std::vector<double> bp = SoftmaxRow(kLogits[i]);
    bp[labels[i]] -= 1;
    want_bp.push_back(bp);
  }
  auto out = RunOk(root, {xent.loss, xent.backprop, xent64.loss, xent64.backprop});
  ExpectNear<float>(out[0], {4}, want_loss, 1e-5);
  ExpectNear<float>(out[1], {4, 3}, Flatten(want_bp), 1e-6);
  ExpectNear<float>(out[2], {4}, want_loss, 1e-5);
  ExpectNear<float>(out[3], {4, 3}, Flatten(want_bp), 1e-6);
}

TEST(SparseXentTest, HalfDoubleAndPartialShapes) {
  Scope root = Scope::NewRootScope();
  auto f = ops::Placeholder(root, DT_DOUBLE, ops::Placeholder::Shape({-1, 3}));
  auto l = ops::Placeholder(root, DT_INT32, ops::Placeholder::Shape({2}));
  auto xd = ops::SparseSoftmaxCrossEntropyWithLogits(root, f, l);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(xd.loss.shape(), TensorShape({2}));
  EXPECT_EQ(xd.backprop.shape(), TensorShape({2, 3}));
  auto xh = ops::SparseSoftmaxCrossEntropyWithLogits(
      root, ops::Const(root, MatrixOf<half>({{0, 0}, {1, -1}})), {1, 0});
  auto out = RunOk(root, {xd.loss, xd.backprop, xh.loss, xh.backprop},
                   {{f, MatrixOf<double>({{0, 0, 0}, {3, 1, 2}})}, {l, {0, 2}}});
  const double lse = LogSumExp({3, 1, 2});
  const std::vector<double> p = SoftmaxRow({3, 1, 2});
  ExpectNear<double>(out[0], {2}, {std::log(3.0), lse - 2}, 1e-12);
  ExpectNear<double>(out[1], {2, 3},
                     {1.0 / 3 - 1, 1.0 / 3, 1.0 / 3, p[0], p[1], p[2] - 1}, 1e-12);
  const std::vector<double> q = SoftmaxRow({1, -1});
  ExpectNear<half>(out[2], {2}, {std::log(2.0), LogSumExp({1, -1}) - 1}, 2e-3);
  ExpectNear<half>(out[3], {2, 2}, {0.5, -0.5, q[0] - 1, q[1]}, 2e-3);
}

TEST(SparseXentTest, LabelOutOfRangeNamesLabelAndRange) {
  Scope root = Scope::NewRootScope();
  auto l = ops::Placeholder(root, DT_INT64, ops::Placeholder::Shape({2}));
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(
      root.WithOpName("xent"), ops::Const(root, MatrixOf<float>({{1, 2, 3}, {0, 0, 0}})), l);
  ExpectInvalid(RunStatus(root, {xent.loss},
                          {{l, Tensor::Vector<int64_t>({1, 5})}}),
                {"Received a label value of 5 which is outside the valid range "
                 "of [0, 3). Label values: 1 5",
                 "'xent'"});
  ExpectInvalid(RunStatus(root, {xent.backprop},
                          {{l, Tensor::Vector<int64_t>({-1, 0})}}),
                {"Received a label value of -1 which is outside the valid "
                 "range of [0, 3)"});
}

TEST(SparseXentTest, StaticShapeErrors) {
  Scope root = Scope::NewRootScope();
  auto labels = ops::Const(root, {0, 1, 2});
  ops::SparseSoftmaxCrossEntropyWithLogits(
      root.WithOpName("x"), ops::Const(root, MatrixOf<float>({{1, 2, 3}, {0, 0, 0}})),
      labels);
  ExpectInvalid(root.status(),
                {"logits and labels must have the same first dimension, got "
                 "logits shape [2,3] and labels shape [3]",
                 "'x'", "[2,3], [3]"});
  Scope root2 = Scope::NewRootScope();
  ops::SparseSoftmaxCrossEntropyWithLogits(root2, ops::Const(root2, {1.f, 2.f}), {0});
  ExpectInvalid(root2.status(), {"logits must be 2-D [batch_size, num_classes]"});
}

// ------------------------------------------------------- Dense cross-entropy

TEST(XentTest, LossAndBackprop) {
  Scope root = Scope::NewRootScope();
  const Rows labels = {{0, 0, 1}, {0.5, 0.5, 0}, {0.25, 0.25, 0.5}, {1, 0, 0}};
  auto xent = ops::SoftmaxCrossEntropyWithLogits(
      root, ops::Const(root, MatrixOf<float>(kLogits)),
      ops::Const(root, MatrixOf<float>(labels)));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(xent.loss.shape(), TensorShape({4}));
  EXPECT_EQ(xent.backprop.shape(), TensorShape({4, 3}));
  std::vector<double> want_loss;
  Rows want_bp;
  for (size_t i = 0; i < labels.size(); ++i) {
    const double lse = LogSumExp(kLogits[i]);
    double loss = 0;
    std::vector<double> bp = SoftmaxRow(kLogits[i]);
    for (int j = 0; j < 3; ++j) {
      loss += labels[i][j] * (lse - kLogits[i][j]);
      bp[j] -= labels[i][j];
    }
    want_loss.push_back(loss);
    want_bp.push_back(bp);
  }
  auto out = RunOk(root, {xent.loss, xent.backprop});
  ExpectNear<float>(out[0], {4}, want_loss, 1e-5);
  ExpectNear<float>(out[1], {4, 3}, Flatten(want_bp), 1e-6);
}

// A row's values do not depend on where it lies in the buffer: rows of 37
// classes start at every offset within a vector, and every row of equal
// logits and labels gives the same bits (an exponential evaluated while
// writing an unaligned row took Eigen's scalar exp for the leading
// elements and its vector exp for the rest, which differ in the last bit).
TEST(XentTest, EveryRowPositionGivesTheSameBits) {
  Scope root = Scope::NewRootScope();
  std::vector<float> logits_row, labels_row;
  for (int j = 0; j < 37; ++j) {
    logits_row.push_back(std::sin(0.7f * j) * 3);
    labels_row.push_back(j % 5 == 0 ? 0.125f : 0.0f);
  }
  const Rows logits(16, std::vector<double>(logits_row.begin(), logits_row.end()));
  const Rows labels(16, std::vector<double>(labels_row.begin(), labels_row.end()));
  auto x = ops::Const(root, MatrixOf<float>(logits));
  auto dense = ops::SoftmaxCrossEntropyWithLogits(root, x, ops::Const(root, MatrixOf<float>(labels)));
  auto sparse = ops::SparseSoftmaxCrossEntropyWithLogits(
      root, x, Input(Tensor::Vector<int32_t>(std::vector<int32_t>(16, 36))));
  ASSERT_TRUE(root.ok()) << root.status();
  auto out = RunOk(root, {dense.backprop, sparse.backprop, ops::Softmax(root, x),
                          ops::LogSoftmax(root, x)});
  for (size_t k = 0; k < out.size(); ++k) {
    const float* v = out[k].data<float>();
    for (int r = 1; r < 16; ++r) {
      for (int j = 0; j < 37; ++j) {
        ASSERT_EQ(v[r * 37 + j], v[j]) << "output " << k << ", row " << r << ", class " << j;
      }
    }
  }
}

TEST(XentTest, BroadcastLabelsAndDouble) {
  Scope root = Scope::NewRootScope();
  const Rows logits = {{1, 2}, {3, 0}};
  auto xent = ops::SoftmaxCrossEntropyWithLogits(
      root, ops::Const(root, MatrixOf<double>(logits)),
      ops::Const(root, MatrixOf<double>({{0.0, 1.0}})));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(xent.backprop.shape(), TensorShape({2, 2}));
  auto out = RunOk(root, {xent.loss, xent.backprop});
  const auto p0 = SoftmaxRow(logits[0]), p1 = SoftmaxRow(logits[1]);
  ExpectNear<double>(out[0], {2},
                     {LogSumExp(logits[0]) - 2, LogSumExp(logits[1]) - 0}, 1e-12);
  ExpectNear<double>(out[1], {2, 2}, {p0[0], p0[1] - 1, p1[0], p1[1] - 1}, 1e-12);
}

TEST(XentTest, Errors) {
  Scope root = Scope::NewRootScope();
  ops::SoftmaxCrossEntropyWithLogits(
      root.WithOpName("x"), ops::Const(root, MatrixOf<float>({{1, 2, 3}})),
      ops::Const(root, MatrixOf<float>({{1, 0}})));
  ExpectInvalid(root.status(), {"logits and labels must be broadcastable: "
                                "logits_size=[1,3] labels_size=[1,2]",
                                "'x'"});
  Scope root2 = Scope::NewRootScope();
  auto l = ops::Placeholder(root2, DT_FLOAT, ops::Placeholder::Shape({-1, -1}));
  auto xent = ops::SoftmaxCrossEntropyWithLogits(
      root2.WithOpName("dyn"), ops::Const(root2, MatrixOf<float>({{1, 2, 3}, {0, 0, 0}})), l);
  ASSERT_TRUE(root2.ok()) << root2.status();
  EXPECT_EQ(xent.loss.shape(), TensorShape({2}));
  ExpectInvalid(RunStatus(root2, {xent.loss}, {{l, MatrixOf<float>({{1, 0}, {0, 1}})}}),
                {"logits_size=[2,3] labels_size=[2,2]", "'dyn'"});
}

}  // namespace
}  // namespace tensorflow_ipu
