// The differential op suite: every lowered op runs on the CPU executor and
// on the simulated IPU (an IPU Model of 4 tiles, so tensors spread over
// several tiles), and the results are compared: exactly for arithmetic,
// comparisons, views, casts, softmax and the cross-entropies (the same
// Eigen expressions on both); within a tight relative tolerance for the
// other transcendental functions (the CPU kernels use Eigen's vectorised
// approximations, the simulator the C library), reductions and matmul
// (summation order).
#include <cmath>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/op_builder.h"
#include "tensorflow_ipu/cc/ops/random_ops.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/ipu/cross_replica_ops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

// Builds the op(s) under test from the placeholders; returns the fetches.
using Builder =
    std::function<std::vector<Output>(const Scope&, const std::vector<Output>&)>;

struct OpCase {
  std::string name;
  std::vector<Tensor> inputs;  // one placeholder per input, on the host
  Builder build;
  double tolerance = 0;        // 0: bitwise equal
};

// How gtest names a case in a failure: by its name, not its bytes.
void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

// Deterministic values in [lo, hi).
Tensor Floats(TensorShape shape, float lo, float hi, int seed) {
  Tensor t(DT_FLOAT, shape);
  uint32_t state = 12345u + 7919u * seed;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    state = state * 1664525u + 1013904223u;
    t.data<float>()[i] = lo + (hi - lo) * ((state >> 8) / 16777216.0f);
  }
  return t;
}

Tensor Halves(TensorShape shape, float lo, float hi, int seed) {
  Tensor f = Floats(shape, lo, hi, seed);
  Tensor t(DT_HALF, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<Eigen::half>()[i] = Eigen::half(f.data<float>()[i]);
  }
  return t;
}

Tensor Ints(std::vector<int32_t> v, TensorShape shape) {
  return Tensor::FromVector(v, shape);
}

absl::StatusOr<std::vector<Tensor>> RunCase(const OpCase& c, bool on_ipu) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("cpu");
  std::vector<Output> placeholders;
  ClientSession::FeedType feeds;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    Output p = ops::Placeholder(cpu.WithOpName("in" + std::to_string(i)),
                                c.inputs[i].dtype(),
                                ops::Placeholder::Shape(c.inputs[i].shape()));
    placeholders.push_back(p);
    feeds.emplace(p, Input::Initializer(c.inputs[i]));
  }
  Scope scope = on_ipu ? ipu::scopes::ipu_scope(root, "/device:IPU:0") : root;
  std::vector<Output> fetches = c.build(scope, placeholders);
  if (!root.ok()) return root.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  RunMetadata metadata;
  absl::Status s =
      session.Run(RunOptions(), feeds, fetches, {}, &out, &metadata);
  if (!s.ok()) return s;
  if (on_ipu) {
    const IpuRunProfile& p = metadata.ipu_profile;
    if (p.clusters.size() != 1) {
      return absl::InternalError("expected the op to run as one IPU cluster");
    }
  }
  return out;
}

double MaxRelativeError(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    const double x = a.data<float>()[i], y = b.data<float>()[i];
    worst = std::max(worst, std::abs(x - y) / (1.0 + std::abs(x)));
  }
  return worst;
}

class OpConformanceTest : public testing::IpuTest,
                          public ::testing::WithParamInterface<OpCase> {};

TEST_P(OpConformanceTest, IpuMatchesCpu) {
  const OpCase& c = GetParam();
  absl::StatusOr<std::vector<Tensor>> cpu = RunCase(c, /*on_ipu=*/false);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  absl::StatusOr<std::vector<Tensor>> ipu = RunCase(c, /*on_ipu=*/true);
  ASSERT_TRUE(ipu.ok()) << ipu.status();
  ASSERT_EQ(cpu->size(), ipu->size());
  for (size_t k = 0; k < cpu->size(); ++k) {
    const Tensor& x = (*cpu)[k];
    const Tensor& y = (*ipu)[k];
    ASSERT_EQ(x.dtype(), y.dtype()) << "output " << k;
    ASSERT_EQ(x.shape(), y.shape()) << "output " << k;
    if (c.tolerance == 0 || x.dtype() != DT_FLOAT) {
      EXPECT_TRUE(x.BitwiseEquals(y))
          << "output " << k << "\ncpu: " << x.DebugString()
          << "\nipu: " << y.DebugString();
    } else {
      EXPECT_LE(MaxRelativeError(x, y), c.tolerance)
          << "output " << k << "\ncpu: " << x.DebugString()
          << "\nipu: " << y.DebugString();
    }
  }
}

template <typename Op>
OpCase Binary(const std::string& name, double tol = 0) {
  return {name,
          {Floats({3, 4}, -2, 2, 1), Floats({4}, 0.5f, 2, 2)},
          [](const Scope& s, const std::vector<Output>& in) {
            return std::vector<Output>{Op(s, in[0], in[1])};
          },
          tol};
}

template <typename Op>
OpCase Unary(const std::string& name, float lo, float hi, double tol = 0) {
  return {name,
          {Floats({5, 7}, lo, hi, 3)},
          [](const Scope& s, const std::vector<Output>& in) {
            return std::vector<Output>{Op(s, in[0])};
          },
          tol};
}

template <typename Op>
OpCase Reduce(const std::string& name, std::vector<int32_t> axes,
              bool keep_dims) {
  return {name,
          {Floats({4, 3, 5}, -2, 2, 4)},
          [axes, keep_dims](const Scope& s, const std::vector<Output>& in) {
            return std::vector<Output>{
                Op(s, in[0], ops::Const(s, Input::Initializer(Tensor::Vector(axes))),
                   Op::KeepDims(keep_dims))};
          },
          1e-6};
}

// Values in {0, 1, 2}: max-pool windows with ties, whose gradient goes to
// the first maximum on both backends.
Tensor Ties(TensorShape shape, int seed) {
  Tensor t = Floats(shape, 0, 3, seed);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = std::floor(t.data<float>()[i]);
  }
  return t;
}

// Conv2D, its gradients, MaxPool and MaxPoolGrad. The convolutions are
// matrix products (summation order differs); max pooling is exact, and so
// is its gradient where windows do not overlap.
void AddWindowCases(std::vector<OpCase>* cases) {
  constexpr double kProduct = 1e-5;
  struct Conv {
    std::string name;
    TensorShape input, filter;
    std::vector<int64_t> strides;
    std::string padding;
  };
  const std::vector<Conv> convs = {
      {"Valid", {2, 6, 6, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, "VALID"},
      {"SameStride2", {2, 7, 7, 2}, {3, 3, 2, 3}, {1, 2, 2, 1}, "SAME"},
      {"SameStrides12", {1, 5, 6, 2}, {2, 3, 2, 2}, {1, 1, 2, 1}, "SAME"},
      {"Pointwise", {2, 4, 4, 3}, {1, 1, 3, 5}, {1, 1, 1, 1}, "SAME"},
  };
  int seed = 50;
  for (const Conv& c : convs) {
    const Tensor x = Floats(c.input, -1, 1, seed++);
    const Tensor f = Floats(c.filter, -1, 1, seed++);
    // The output's shape, from the CPU's own rule: run the forward op on a
    // scope of its own to read it.
    Scope probe = Scope::NewRootScope();
    const TensorShape y_shape =
        ops::Conv2D(probe, Tensor(DT_FLOAT, c.input), Tensor(DT_FLOAT, c.filter), c.strides,
                    c.padding)
            .output.shape();
    const Tensor dy = Floats(y_shape, -1, 1, seed++);
    std::vector<int32_t> in_sizes(c.input.dim_sizes().begin(), c.input.dim_sizes().end());
    std::vector<int32_t> f_sizes(c.filter.dim_sizes().begin(), c.filter.dim_sizes().end());
    cases->push_back({"Conv2D" + c.name, {x, f},
                      [c](const Scope& s, const std::vector<Output>& in) {
                        return std::vector<Output>{
                            ops::Conv2D(s, in[0], in[1], c.strides, c.padding)};
                      },
                      kProduct});
    cases->push_back({"Conv2DBackpropInput" + c.name, {f, dy},
                      [c, in_sizes](const Scope& s, const std::vector<Output>& in) {
                        return std::vector<Output>{ops::Conv2DBackpropInput(
                            s, ops::Const(s, Input::Initializer(Tensor::Vector(in_sizes))),
                            in[0], in[1], c.strides, c.padding)};
                      },
                      kProduct});
    cases->push_back({"Conv2DBackpropFilter" + c.name, {x, dy},
                      [c, f_sizes](const Scope& s, const std::vector<Output>& in) {
                        return std::vector<Output>{ops::Conv2DBackpropFilter(
                            s, in[0], ops::Const(s, Input::Initializer(Tensor::Vector(f_sizes))),
                            in[1], c.strides, c.padding)};
                      },
                      kProduct});
  }
  struct Pool {
    std::string name;
    Tensor input;
    std::vector<int64_t> ksize, strides;
    std::string padding;
    double tolerance;
  };
  const std::vector<Pool> pools = {
      {"Valid2x2", Floats({2, 6, 6, 3}, -2, 2, 70), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", 0},
      {"Same3x3Stride2", Floats({1, 7, 7, 2}, -2, 2, 71), {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME",
       1e-6},
      {"Ties", Ties({2, 4, 6, 2}, 72), {1, 2, 3, 1}, {1, 2, 3, 1}, "VALID", 0},
      {"Half", Halves({1, 5, 5, 2}, -2, 2, 73), {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME", 0},
  };
  for (const Pool& p : pools) {
    cases->push_back({"MaxPool" + p.name, {p.input},
                      [p](const Scope& s, const std::vector<Output>& in) {
                        return std::vector<Output>{
                            ops::MaxPool(s, in[0], p.ksize, p.strides, p.padding)};
                      }});
    Scope probe = Scope::NewRootScope();
    const TensorShape y_shape =
        ops::MaxPool(probe, Tensor(p.input.dtype(), p.input.shape()), p.ksize, p.strides,
                     p.padding)
            .output.shape();
    Tensor grad = p.input.dtype() == DT_HALF ? Halves(y_shape, -1, 1, 80)
                                             : Floats(y_shape, -1, 1, 80);
    cases->push_back({"MaxPoolGrad" + p.name, {p.input, grad},
                      [p](const Scope& s, const std::vector<Output>& in) {
                        auto y = ops::MaxPool(s, in[0], p.ksize, p.strides, p.padding);
                        return std::vector<Output>{ops::MaxPoolGrad(
                            s, in[0], y, in[1], p.ksize, p.strides, p.padding)};
                      },
                      p.tolerance});
  }
}

std::vector<OpCase> Cases() {
  constexpr double kTranscendental = 1e-6;
  std::vector<OpCase> cases = {
      Binary<ops::Add>("Add"),
      Binary<ops::AddV2>("AddV2"),
      Binary<ops::Sub>("Sub"),
      Binary<ops::Mul>("Mul"),
      Binary<ops::RealDiv>("RealDiv"),
      Binary<ops::Maximum>("Maximum"),
      Binary<ops::Minimum>("Minimum"),
      Binary<ops::Equal>("Equal"),
      Binary<ops::Less>("Less"),
      Binary<ops::Greater>("Greater"),
      Unary<ops::Neg>("Neg", -3, 3),
      Unary<ops::Square>("Square", -3, 3),
      Unary<ops::Sqrt>("Sqrt", 0.1f, 9, kTranscendental),
      Unary<ops::Rsqrt>("Rsqrt", 0.1f, 9, kTranscendental),
      Unary<ops::Exp>("Exp", -3, 3, kTranscendental),
      Unary<ops::Log>("Log", 0.1f, 9, kTranscendental),
      Unary<ops::Tanh>("Tanh", -3, 3, kTranscendental),
      Unary<ops::Sigmoid>("Sigmoid", -3, 3, kTranscendental),
      Unary<ops::Relu>("Relu", -3, 3),
      Unary<ops::Reciprocal>("Reciprocal", 0.5f, 3, kTranscendental),
      Reduce<ops::Sum>("SumAxis1", {1}, false),
      Reduce<ops::Sum>("SumAllKeepDims", {0, 1, 2}, true),
      Reduce<ops::Mean>("MeanNegativeAxis", {-1}, false),
      Reduce<ops::Max>("MaxAxis0", {0}, false),
      Reduce<ops::Min>("MinAxes02KeepDims", {0, 2}, true),
  };
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      cases.push_back(
          {std::string("MatMul") + (ta ? "TA" : "") + (tb ? "TB" : ""),
           {Floats(ta ? TensorShape({6, 3}) : TensorShape({3, 6}), -1, 1, 5),
            Floats(tb ? TensorShape({5, 6}) : TensorShape({6, 5}), -1, 1, 6)},
           [ta, tb](const Scope& s, const std::vector<Output>& in) {
             return std::vector<Output>{ops::MatMul(
                 s, in[0], in[1], ops::MatMul::TransposeA(ta).TransposeB(tb))};
           },
           1e-5});
    }
  }
  cases.push_back({"BiasAdd",
                   {Floats({4, 3}, -1, 1, 7), Floats({3}, -1, 1, 8)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::BiasAdd(s, in[0], in[1])};
                   }});
  // Column sums: a reduction, so within the reductions' tolerance.
  cases.push_back({"BiasAddGrad",
                   {Floats({40, 3}, -1, 1, 10)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::BiasAddGrad(s, in[0])};
                   },
                   1e-5});
  cases.push_back({"ReshapeTransposeExpandSqueeze",
                   {Floats({2, 6}, -1, 1, 9)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto r = ops::Reshape(s, in[0], ops::Const(s, {3, 4}));
                     auto t = ops::Transpose(s, r, ops::Const(s, {1, 0}));
                     auto e = ops::ExpandDims(s, t, ops::Const(s, 1));
                     auto q = ops::Squeeze(s, e);
                     // Views only: add 1 so there is computation to check.
                     return std::vector<Output>{
                         ops::Add(s, q, ops::Const(s, 1.f)), e};
                   }});
  cases.push_back({"Identity",
                   {Floats({3}, -1, 1, 10)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     // An Identity alone passes values through and runs on
                     // the host; between two ops it is lowered.
                     auto x = ops::Neg(s, in[0]);
                     return std::vector<Output>{
                         ops::Neg(s, ops::Identity(s, x))};
                   }});
  cases.push_back({"CastFloatToInt",
                   {Floats({8}, -5, 5, 11)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::Cast(s, in[0], DT_INT32)};
                   }});
  cases.push_back({"CastIntToFloat",
                   {Ints({-3, 0, 7, 100}, TensorShape({4}))},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::Cast(s, in[0], DT_FLOAT)};
                   }});
  // Softmax and the cross-entropies: the same Eigen expressions on both
  // backends, so bitwise equal; rows of 5 (scalar paths), 10 (the MLP's
  // classes) and 37 (whole vectors and a remainder).
  for (int64_t cols : {5, 10, 37}) {
    const std::string w = cols == 5 ? "" : "_" + std::to_string(cols);
    cases.push_back({"Softmax" + w,
                     {Floats({4, cols}, -3, 3, 12)},
                     [](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{ops::Softmax(s, in[0])};
                     }});
    cases.push_back({"LogSoftmax" + w,
                     {Floats({4, cols}, -3, 3, 13)},
                     [](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{ops::LogSoftmax(s, in[0])};
                     }});
    cases.push_back({"SparseSoftmaxCrossEntropyWithLogits" + w,
                     {Floats({4, cols}, -3, 3, 14), Ints({0, 4, 2, 1}, TensorShape({4}))},
                     [](const Scope& s, const std::vector<Output>& in) {
                       ops::SparseSoftmaxCrossEntropyWithLogits x(s, in[0], in[1]);
                       return std::vector<Output>{x.loss, x.backprop};
                     }});
    cases.push_back({"SoftmaxCrossEntropyWithLogits" + w,
                     {Floats({3, cols}, -2, 2, 30), Floats({3, cols}, 0, 1, 31)},
                     [](const Scope& s, const std::vector<Output>& in) {
                       auto labels = ops::Softmax(s, in[1]);
                       ops::SoftmaxCrossEntropyWithLogits x(s, in[0], labels);
                       return std::vector<Output>{x.loss, x.backprop};
                     }});
  }
  cases.push_back({"ConcatV2",
                   {Floats({2, 3}, -1, 1, 15), Floats({2, 2}, -1, 1, 16)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto c = ops::Concat(s, {in[0], in[1]}, ops::Const(s, -1));
                     return std::vector<Output>{ops::Mul(s, c, c)};
                   }});
  cases.push_back({"Select",
                   {Floats({3, 4}, -1, 1, 17), Floats({3, 4}, -1, 1, 18)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto cond = ops::Greater(s, in[0], in[1]);
                     return std::vector<Output>{ops::Select(s, cond, in[0], in[1])};
                   }});
  cases.push_back({"OneHot",
                   {Ints({0, 3, 1, 2, 3}, TensorShape({5}))},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::OneHot(
                         s, in[0], ops::Const(s, 4), ops::Const(s, 1.f),
                         ops::Const(s, 0.f))};
                   }});
  cases.push_back({"Slice",
                   {Floats({4, 5}, -1, 1, 19)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto x = ops::Slice(s, in[0], ops::Const(s, {1, 2}),
                                         ops::Const(s, {2, -1}));
                     return std::vector<Output>{ops::Neg(s, x)};
                   }});
  cases.push_back({"ConstOnTheIpu",
                   {Floats({2, 2}, -1, 1, 20)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto c = ops::Const(s, {{1.f, 2.f}, {3.f, 4.f}});
                     return std::vector<Output>{ops::Mul(s, in[0], c)};
                   }});
  cases.push_back(Binary<ops::NotEqual>("NotEqual"));
  cases.push_back(Binary<ops::LessEqual>("LessEqual"));
  cases.push_back(Binary<ops::GreaterEqual>("GreaterEqual"));
  cases.push_back({"AddInt32",
                   {Ints({1, -2, 3, 40}, TensorShape({2, 2})),
                    Ints({5, 6}, TensorShape({2}))},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::Add(s, in[0], in[1]),
                                                ops::Mul(s, in[0], in[1])};
                   }});
  cases.push_back({"LogicalOps",
                   {Floats({6}, -1, 1, 21), Floats({6}, -1, 1, 22)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto p = ops::Greater(s, in[0], ops::Const(s, 0.f));
                     auto q = ops::Greater(s, in[1], ops::Const(s, 0.f));
                     return std::vector<Output>{ops::LogicalAnd(s, p, q),
                                                ops::LogicalOr(s, p, q),
                                                ops::LogicalNot(s, p)};
                   }});
  cases.push_back({"SelectRowsWithVectorCondition",
                   {Floats({3, 4}, -1, 1, 23), Floats({3, 4}, -1, 1, 24),
                    Floats({3}, -1, 1, 25)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto cond = ops::Greater(s, in[2], ops::Const(s, 0.f));
                     return std::vector<Output>{ops::Select(s, cond, in[0], in[1])};
                   }});
  cases.push_back({"SelectV2Broadcast",
                   {Floats({3, 4}, -1, 1, 26), Floats({4}, -1, 1, 27)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto cond = ops::Greater(s, in[1], ops::Const(s, 0.f));
                     return std::vector<Output>{ops::SelectV2(s, cond, in[0],
                                                              ops::Const(s, 0.f))};
                   }});
  cases.push_back({"ActivationGradients",
                   {Floats({2, 5}, -2, 2, 28), Floats({2, 5}, -1, 1, 29)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto y = ops::Sigmoid(s, in[0]);
                     auto t = ops::Tanh(s, in[0]);
                     return std::vector<Output>{ops::ReluGrad(s, in[1], in[0]),
                                                ops::SigmoidGrad(s, y, in[1]),
                                                ops::TanhGrad(s, t, in[1])};
                   },
                   1e-6});
  cases.push_back(Reduce<ops::Prod>("ProdAxis2", {2}, false));
  cases.push_back({"Stack",
                   {Floats({2, 3}, -1, 1, 32), Floats({2, 3}, -1, 1, 33)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto st = ops::Stack(s, {in[0], in[1]}, ops::Stack::Axis(1));
                     return std::vector<Output>{ops::Neg(s, st)};
                   }});
  cases.push_back({"BiasAddNCHW",
                   {Floats({2, 3, 2, 2}, -1, 1, 34), Floats({3}, -1, 1, 35)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::BiasAdd(
                         s, in[0], in[1], ops::BiasAdd::DataFormat("NCHW"))};
                   }});
  cases.push_back({"OneHotAxis0",
                   {Ints({2, 0, 1}, TensorShape({3}))},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::OneHot(
                         s, in[0], ops::Const(s, 3), ops::Const(s, 5.f),
                         ops::Const(s, -1.f), ops::OneHot::Axis(0))};
                   }});
  cases.push_back({"FillZerosOnesTile",
                   {Floats({2, 3}, -1, 1, 36)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto f = ops::Fill(s, ops::Const(s, {2, 3}), ops::Const(s, 2.5f));
                     auto z = ops::ZerosLike(s, in[0]);
                     auto o = ops::OnesLike(s, in[0]);
                     auto t = ops::Tile(s, in[0], ops::Const(s, {2, 1}));
                     return std::vector<Output>{ops::Add(s, in[0], f),
                                                ops::Add(s, z, o),
                                                ops::Neg(s, t)};
                   }});
  cases.push_back({"ScalarsAndFullReduction",
                   {Floats({3, 4}, -1, 1, 38), Tensor::Scalar(2.5f)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto total = ops::Sum(s, in[0], ops::Const(s, {0, 1}));
                     return std::vector<Output>{ops::Mul(s, total, in[1]),
                                                ops::Mul(s, in[0], in[1])};
                   },
                   1e-6});
  // IpuGelu, the vendor's GELU (tanh approximation), built by type name as
  // the converter's graphs hold it.
  for (DataType dtype : {DT_FLOAT, DT_HALF}) {
    cases.push_back({dtype == DT_FLOAT ? "IpuGelu" : "IpuGeluHalf",
                     {dtype == DT_FLOAT ? Floats({5, 7}, -4, 4, 41) : Halves({5, 7}, -4, 4, 41)},
                     [dtype](const Scope& s, const std::vector<Output>& in) {
                       Operation gelu = ops::BuildOp(
                           s, "IpuGelu", {in[0]}, {{"dtype", MakeAttrValue(dtype)}});
                       return std::vector<Output>{Output(gelu, 0)};
                     },
                     kTranscendental});
  }
  cases.push_back({"HalfArithmetic",
                   {Halves({4, 3}, -2, 2, 39), Halves({3}, 0.5f, 2, 40)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::Add(s, in[0], in[1]),
                                                ops::Mul(s, in[0], in[1])};
                   }});
  cases.push_back({"StridedSlice",
                   {Floats({5, 6, 3}, -1, 1, 37)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     // x[4:0:-2, 1::2, 1] and x[..., newaxis, :2]
                     auto a = ops::StridedSlice(
                         s, in[0], ops::Const(s, {4, 1, 1}),
                         ops::Const(s, {0, 0, 0}), ops::Const(s, {-2, 2, 1}),
                         ops::StridedSlice::EndMask(2).ShrinkAxisMask(4));
                     auto b = ops::StridedSlice(
                         s, in[0], ops::Const(s, {0, 0, 0}),
                         ops::Const(s, {0, 0, 2}), ops::Const(s, {1, 1, 1}),
                         ops::StridedSlice::EllipsisMask(1).NewAxisMask(2));
                     return std::vector<Output>{ops::Neg(s, a), ops::Neg(s, b)};
                   }});
  // One replica (this suite attaches one IPU): the reductions return their
  // input and the index is 0, as on the host; tests/ipu/replication_test
  // checks them across replicas.
  cases.push_back({"CrossReplicaOneReplica",
                   {Floats({3, 2}, -1, 1, 40)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ipu::ops::cross_replica_sum(s, in[0]),
                                                ipu::ops::cross_replica_mean(s, in[0]),
                                                ipu::ops::replication_index(s)};
                   }});
  AddWindowCases(&cases);
  return cases;
}

// Random ops: the CPU and the IPU have their own generators, so their
// values differ; both must give the dtype and shape, values within the
// distribution's range [lo, hi) (hi included when `closed`), and not one
// value repeated.
struct RandomCase {
  OpCase op;
  double lo, hi;
  bool closed = false;
};

std::vector<RandomCase> RandomCases() {
  auto make = [](const std::string& name, DataType dtype, auto op) {
    return OpCase{name,
                  {Floats({2, 3}, -1, 1, 50)},
                  [dtype, op](const Scope& s, const std::vector<Output>& in) {
                    // Added to 0 x a placeholder: the cluster has a fed input.
                    Output r = op(s, dtype);
                    Output zero = ops::Cast(s, ops::Mul(s, in[0], 0.f), dtype);
                    return std::vector<Output>{r, ops::Add(s, ops::Slice(s, r, {0, 0, 0}, {1, 2, 3}),
                                                          ops::Reshape(s, zero, {1, 2, 3}))};
                  }};
  };
  auto uniform = [](const Scope& s, DataType t) {
    return Output(ops::RandomUniform(s, ops::Const(s, {4, 2, 3}), t));
  };
  auto normal = [](const Scope& s, DataType t) {
    return Output(ops::RandomNormal(s, ops::Const(s, {4, 2, 3}), t, ops::RandomNormal::Seed(3)));
  };
  auto truncated = [](const Scope& s, DataType t) {
    return Output(ops::TruncatedNormal(s, ops::Const(s, {4, 2, 3}), t));
  };
  return {{make("RandomUniform", DT_FLOAT, uniform), 0, 1},
          {make("RandomUniformHalf", DT_HALF, uniform), 0, 1},
          {make("RandomStandardNormal", DT_FLOAT, normal), -10, 10},
          {make("RandomStandardNormalHalf", DT_HALF, normal), -10, 10},
          {make("TruncatedNormal", DT_FLOAT, truncated), -2, 2, true},
          {make("TruncatedNormalHalf", DT_HALF, truncated), -2, 2, true}};
}

class RandomOpConformanceTest : public testing::IpuTest,
                                public ::testing::WithParamInterface<RandomCase> {};

TEST_P(RandomOpConformanceTest, DtypeShapeAndRangeOnCpuAndIpu) {
  const RandomCase& c = GetParam();
  absl::StatusOr<std::vector<Tensor>> cpu = RunCase(c.op, /*on_ipu=*/false);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  absl::StatusOr<std::vector<Tensor>> ipu = RunCase(c.op, /*on_ipu=*/true);
  ASSERT_TRUE(ipu.ok()) << ipu.status();
  ASSERT_EQ(cpu->size(), ipu->size());
  for (size_t k = 0; k < cpu->size(); ++k) {
    const Tensor& x = (*cpu)[k];
    const Tensor& y = (*ipu)[k];
    ASSERT_EQ(x.dtype(), y.dtype()) << "output " << k;
    ASSERT_EQ(x.shape(), y.shape()) << "output " << k;
    for (const Tensor* t : {&x, &y}) {
      const char* where = t == &x ? "cpu" : "ipu";
      std::set<double> values;
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        const double v = t->dtype() == DT_HALF
                             ? static_cast<double>(static_cast<float>(t->data<Eigen::half>()[i]))
                             : t->data<float>()[i];
        EXPECT_GE(v, c.lo) << where << " output " << k << " element " << i;
        if (c.closed) {
          EXPECT_LE(v, c.hi) << where << " output " << k << " element " << i;
        } else {
          EXPECT_LT(v, c.hi) << where << " output " << k << " element " << i;
        }
        values.insert(v);
      }
      EXPECT_GT(values.size(), static_cast<size_t>(t->NumElements()) / 2)
          << where << " output " << k << ": " << t->DebugString();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(RandomOps, RandomOpConformanceTest,
                         ::testing::ValuesIn(RandomCases()),
                         [](const ::testing::TestParamInfo<RandomCase>& info) {
                           return info.param.op.name;
                         });

// The ops each case places on the IPU, read from the graph it builds.
std::set<std::string> OpsOnTheIpu(const OpCase& c) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> placeholders;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    placeholders.push_back(ops::Placeholder(
        root.WithDevice("cpu").WithOpName("in" + std::to_string(i)),
        c.inputs[i].dtype(), ops::Placeholder::Shape(c.inputs[i].shape())));
  }
  c.build(ipu::scopes::ipu_scope(root, "/device:IPU:0"), placeholders);
  std::set<std::string> ops;
  for (const auto& node : root.graph()->nodes()) {
    if (node->requested_device().IsIpu()) ops.insert(node->op());
  }
  return ops;
}

// Lowered ops whose conformance is not a value computed from placeholders:
// each is checked where it is used, by the test named here.
const std::map<std::string, std::string>& CoveredElsewhere() {
  static const auto* covered = new std::map<std::string, std::string>{
      {"AssignAddVariableOp", "tests/ipu/variables_test"},
      {"AssignSubVariableOp", "tests/ipu/variables_test"},
      {"AssignVariableOp", "tests/ipu/variables_test"},
      {"IpuInfeedDequeue", "tests/ipu/loops_test"},
      {"If", "tests/bad_input/control_flow_test (a stateful branch, refused)"},
      {"StatelessIf", "tests/ipu/control_flow_test"},
      {"StatelessWhile", "tests/ipu/control_flow_test"},
      {"While", "tests/ipu/control_flow_test (a variable in the body, refused)"},
      {"NoOp", "tensorflow_ipu/ipu/ipu_compiler_test (a function without outputs)"},
      {"IpuLoopEnter", "tests/ipu/loops_test"},
      {"IpuLoopExit", "tests/ipu/loops_test"},
      {"IpuOutfeedEnqueue", "tests/ipu/loops_test"},
      {"ReadVariableOp", "tests/ipu/variables_test"},
      {"ResourceApplyGradientDescent", "tensorflow_ipu/train/optimizers_test"},
      {"VarHandleOp", "tests/ipu/variables_test"},
      // Made by the compiler's cross-replica-combining pass, never by a
      // user: replicated training with a cross-replica sum buffer, values
      // bit for bit those of the separate reductions.
      {"_CombinedCrossReplica", "tests/ipu/replication_test"},
  };
  return *covered;
}

// The suite covers the lowering registry: an op that gains a lowering
// without a case here fails this test, naming the op.
TEST(OpConformanceCoverageTest, EveryLoweredOpHasACase) {
  std::set<std::string> covered;
  for (const OpCase& c : Cases()) {
    for (const std::string& op : OpsOnTheIpu(c)) covered.insert(op);
  }
  for (const RandomCase& c : RandomCases()) {
    for (const std::string& op : OpsOnTheIpu(c.op)) covered.insert(op);
  }
  std::vector<std::string> missing;
  for (const std::string& op : compiler::LoweringRegistry::Global()->ListOps()) {
    if (covered.count(op) == 0 && CoveredElsewhere().count(op) == 0) {
      missing.push_back(op);
    }
  }
  EXPECT_TRUE(missing.empty())
      << "lowered ops without a conformance case: "
      << ::testing::PrintToString(missing);
  // The exceptions are lowered ops, so the list cannot go stale silently.
  for (const auto& [op, test] : CoveredElsewhere()) {
    EXPECT_TRUE(compiler::LoweringRegistry::Global()->Has(op))
        << op << " is listed as covered by " << test << " but has no lowering";
  }
}

INSTANTIATE_TEST_SUITE_P(AllLoweredOps, OpConformanceTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace tensorflow_ipu
