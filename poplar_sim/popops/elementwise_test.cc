#include "poplar_sim/popops/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/testing/run_util.h"

namespace poplar_sim {
namespace popops {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::RunBothModes;

Tensor Const(Graph& g, std::vector<size_t> shape, std::vector<float> v,
             Type t = FLOAT) {
  Tensor c = g.addConstant<float>(t, std::move(shape), absl::MakeConstSpan(v));
  poputil::mapTensorLinearly(g, c);
  return c;
}

// Large element-wise ops are split over the host threads (each part at
// least 32,768 elements): the same values as on one thread, for contiguous
// operands, a repeated block (a bias), strided views computed run by run
// (a pooling tap), unary ops in and out of place, select and scaledAddTo.
TEST(ElementwiseTest, HostThreadsChangeNoValue) {
  const size_t rows = 400, cols = 400;  // 160,000 elements: split in two
  std::vector<float> xv(rows * cols), yv(rows * cols), bias(cols);
  for (size_t i = 0; i < xv.size(); ++i) {
    xv[i] = std::sin(0.37f * i) * 3;
    yv[i] = std::cos(0.11f * i) + 0.25f;
  }
  for (size_t i = 0; i < cols; ++i) bias[i] = 0.01f * i - 1;
  auto build = [&](Graph& g, program::Sequence& p) {
    Tensor x = Const(g, {rows, cols}, xv), y = Const(g, {rows, cols}, yv);
    Tensor b = Const(g, {cols}, bias);
    // Column blocks: views made of one stride-1 run per row, computed run
    // by run in place.
    Tensor xs = x.slice({0, 0}, {rows, 200}), ys = y.slice({0, 200}, {rows, 400});
    Tensor acc = add(g, x, y, p);
    Tensor inPlace = map(g, UnaryOpType::NEGATE, y, p);
    mapInPlace(g, UnaryOpType::EXPONENT, inPlace, p);
    scaledAddTo(g, acc, y, -0.5f, p);
    return std::vector<Tensor>{
        acc,
        add(g, x, b, p),
        sub(g, b, x, p),
        map(g, BinaryOpType::MAXIMUM, xs, ys, p),
        map(g, UnaryOpType::SQRT, map(g, UnaryOpType::ABSOLUTE, x, p), p),
        inPlace,
        select(g, x, y, map(g, BinaryOpType::GREATER_THAN, x, y, p), p),
        map(g, BinaryOpType::LESS_THAN, x, y, p)};
  };
  const auto one = testing::RunOnce(build, 16);
  SpawnedHostThreads two(2);
  const auto split = testing::RunOnce(build, 16, {}, &two);
  ASSERT_EQ(one.size(), split.size());
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(one[i].size(), split[i].size()) << "output " << i;
    for (size_t k = 0; k < one[i].size(); ++k) {
      ASSERT_EQ(one[i][k], split[i][k]) << "output " << i << " element " << k;
    }
  }
  EXPECT_FLOAT_EQ(one[1][cols + 7], xv[cols + 7] + bias[7]);
  EXPECT_FLOAT_EQ(one[3][5], std::max(xv[5], yv[205]));
}

TEST(ElementwiseTest, AddWithNumpyBroadcasting) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor m = Const(g, {2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor row = Const(g, {3}, {10, 20, 30});
    Tensor col = Const(g, {2, 1}, {100, 200});
    Tensor s = Const(g, {}, {0.5});
    return std::vector<Tensor>{add(g, m, row, p), add(g, col, m, p),
                               mul(g, m, s, p), add(g, row, col, p)};
  });
  EXPECT_THAT(r[0], ElementsAre(11, 22, 33, 14, 25, 36));
  EXPECT_THAT(r[1], ElementsAre(101, 102, 103, 204, 205, 206));
  EXPECT_THAT(r[2], ElementsAre(0.5, 1, 1.5, 2, 2.5, 3));
  EXPECT_THAT(r[3], ElementsAre(110, 120, 130, 210, 220, 230));  // [2,3]
}

// A repeated block (a row, a scalar) is read once and tiled by the bulk
// executor, on either side of a non-commutative op, across several of its
// 1024-element chunks, and also when the block is part of the output.
TEST(ElementwiseTest, RepeatedBlocksOnEitherSideAndInPlace) {
  const size_t rows = 700, cols = 3;  // 2100 elements: three chunks
  std::vector<float> mv(rows * cols);
  for (size_t i = 0; i < mv.size(); ++i) mv[i] = float(i % 17);
  auto r = RunBothModes([&](Graph& g, program::Sequence& p) {
    Tensor m = Const(g, {rows, cols}, mv);
    Tensor row = Const(g, {1, cols}, {10, 20, 30});
    Tensor s = Const(g, {}, {2});
    Tensor inPlace = Const(g, {2, 3}, {1, 2, 3, 4, 5, 6});
    // inPlace -= its own first row: the row is read before it is written.
    mapInPlace(g, BinaryOpType::SUBTRACT, inPlace, inPlace[0], p);
    return std::vector<Tensor>{sub(g, row, m, p), sub(g, m, s, p),
                               map(g, BinaryOpType::LESS_THAN, s, m, p), inPlace};
  });
  ASSERT_EQ(r[0].size(), rows * cols);
  for (size_t i = 0; i < rows * cols; ++i) {
    const float rowv = 10.f * float(i % cols + 1);
    EXPECT_EQ(r[0][i], rowv - mv[i]) << i;
    EXPECT_EQ(r[1][i], mv[i] - 2) << i;
    EXPECT_EQ(r[2][i], 2 < mv[i] ? 1 : 0) << i;
  }
  EXPECT_THAT(r[3], ElementsAre(0, 0, 0, 3, 3, 3));
}

// Views made of stride-1 runs that are not one run (a window's tap, a
// column block) are computed in place, run by run, with runs of the two
// operands and the output that do not line up; in place on such a view;
// and into a view of a fresh variable. Checked against each element.
TEST(ElementwiseTest, ViewsOfRowPiecesRunByRun) {
  const size_t rows = 40, cols = 80, w = 32;
  std::vector<float> mv(rows * cols), nv(rows * cols);
  for (size_t i = 0; i < mv.size(); ++i) {
    mv[i] = float(i % 23) - 7;
    nv[i] = float(i % 11) + 0.5f;
  }
  auto r = RunBothModes([&](Graph& g, program::Sequence& p) {
    Tensor m = Const(g, {rows, cols}, mv);
    Tensor n = Const(g, {rows, cols}, nv);
    // [40, 32] from columns 8..40 of m (runs of 32) and [40, 32] from n
    // in pieces of 64, cut at other places.
    Tensor a = m.slice({0, 8}, {rows, 8 + w});
    Tensor b = n.reshape({rows / 2, 2 * cols})
                   .slice({0, 4}, {rows / 2, 4 + 2 * w})
                   .reshape({rows, w});
    Tensor sum = add(g, a, b, p);
    // In place on a view: m's columns 44..76 -= a (another part of m:
    // read before anything of m is written).
    Tensor target = m.slice({0, 44}, {rows, 44 + w});
    mapInPlace(g, BinaryOpType::SUBTRACT, target, a, p);
    // Into a view of a fresh variable.
    Tensor outVar = g.addVariable(FLOAT, {rows, 2 * w}, "out");
    poputil::mapTensorLinearly(g, outVar);
    Tensor outView = outVar.slice({0, w}, {rows, 2 * w});
    mapTo(g, BinaryOpType::MULTIPLY, a, b, outView, p);
    return std::vector<Tensor>{sum, m, outView};
  });
  ASSERT_EQ(r[0].size(), rows * w);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < w; ++j) {
      const float av = mv[i * cols + 8 + j];
      const size_t flat = i * w + j;  // b's element, in pieces of 2w
      const float bv = nv[(flat / (2 * w)) * 2 * cols + 4 + flat % (2 * w)];
      EXPECT_EQ(r[0][i * w + j], av + bv) << i << "," << j;
      EXPECT_EQ(r[1][i * cols + 44 + j], mv[i * cols + 44 + j] - av) << i << "," << j;
      EXPECT_EQ(r[2][i * w + j], av * bv) << i << "," << j;
    }
    EXPECT_EQ(r[1][i * cols + 8], mv[i * cols + 8]) << i;  // untouched
  }
}

TEST(ElementwiseTest, ArithmeticAndComparisons) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor a = Const(g, {4}, {1, -2, 3, 8});
    Tensor b = Const(g, {4}, {2, 2, 3, -4});
    return std::vector<Tensor>{sub(g, a, b, p), div(g, a, b, p), max(g, a, b, p),
                               min(g, a, b, p), pow(g, b, a, p), lt(g, a, b, p),
                               eq(g, a, b, p), gteq(g, a, b, p)};
  });
  EXPECT_THAT(r[0], ElementsAre(-1, -4, 0, 12));
  EXPECT_THAT(r[1], ElementsAre(0.5, -1, 1, -2));
  EXPECT_THAT(r[2], ElementsAre(2, 2, 3, 8));
  EXPECT_THAT(r[3], ElementsAre(1, -2, 3, -4));
  EXPECT_THAT(r[4], ElementsAre(2, 0.25, 27, 65536));
  EXPECT_THAT(r[5], ElementsAre(1, 1, 0, 0));
  EXPECT_THAT(r[6], ElementsAre(0, 0, 1, 0));
  EXPECT_THAT(r[7], ElementsAre(0, 0, 1, 1));
}

TEST(ElementwiseTest, UnaryFunctions) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor a = Const(g, {3}, {-1, 0, 2});
    Tensor q = Const(g, {2}, {4, 0.25});
    return std::vector<Tensor>{exp(g, a, p),    neg(g, a, p),  abs(g, a, p),
                               square(g, a, p), sqrt(g, q, p), rsqrt(g, q, p),
                               log(g, q, p),    tanh(g, a, p), sigmoid(g, a, p),
                               signum(g, a, p)};
  });
  EXPECT_THAT(r[0], ElementsAre(DoubleNear(std::exp(-1.0), 1e-6), 1,
                                DoubleNear(std::exp(2.0), 1e-5)));
  EXPECT_THAT(r[1], ElementsAre(1, 0, -2));
  EXPECT_THAT(r[2], ElementsAre(1, 0, 2));
  EXPECT_THAT(r[3], ElementsAre(1, 0, 4));
  EXPECT_THAT(r[4], ElementsAre(2, 0.5));
  EXPECT_THAT(r[5], ElementsAre(0.5, 2));
  EXPECT_THAT(r[6], ElementsAre(DoubleNear(std::log(4.0), 1e-6),
                                DoubleNear(std::log(0.25), 1e-6)));
  EXPECT_THAT(r[7], ElementsAre(DoubleNear(std::tanh(-1.0), 1e-6), 0,
                                DoubleNear(std::tanh(2.0), 1e-6)));
  EXPECT_THAT(r[8], ElementsAre(DoubleNear(1 / (1 + std::exp(1.0)), 1e-6), 0.5,
                                DoubleNear(1 / (1 + std::exp(-2.0)), 1e-6)));
  EXPECT_THAT(r[9], ElementsAre(-1, 0, 1));
}

TEST(ElementwiseTest, IntegerHalfAndBool) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor i = Const(g, {3}, {7, -7, 9}, INT);
    Tensor j = Const(g, {3}, {2, 2, 0}, INT);
    Tensor h = Const(g, {2}, {1.5, 2.25}, HALF);
    Tensor t = Const(g, {2}, {1, 0}, BOOL);
    Tensor f = Const(g, {2}, {1, 1}, BOOL);
    return std::vector<Tensor>{div(g, i, j, p), rem(g, i, j, p), add(g, h, h, p),
                               logicalAnd(g, t, f, p), logicalNot(g, t, p)};
  });
  EXPECT_THAT(r[0], ElementsAre(3, -3, 0));  // integer division by 0 gives 0
  EXPECT_THAT(r[1], ElementsAre(1, -1, 0));
  EXPECT_THAT(r[2], ElementsAre(3, 4.5));
  EXPECT_THAT(r[3], ElementsAre(1, 0));
  EXPECT_THAT(r[4], ElementsAre(0, 1));
}

// Integer arithmetic wraps round (two's complement) instead of overflowing,
// and the lowest int over -1 gives the wrapped quotient, remainder 0 (a
// C++ division would trap), in both execution modes.
TEST(ElementwiseTest, IntegerArithmeticWrapsRound) {
  constexpr int32_t kMax = INT32_MAX, kMin = INT32_MIN;
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    auto ints = [&](std::initializer_list<int32_t> v) {
      Tensor c = g.addConstant<int32_t>(INT, {v.size()}, v);
      poputil::mapTensorLinearly(g, c);
      return c;
    };
    Tensor a = ints({kMax, kMin, kMin, 65536, 7});
    Tensor b = ints({1, 1, -1, 65536, -1});
    Tensor big = g.addConstant<int64_t>(LONGLONG, {2}, {INT64_MAX, INT64_MIN});
    poputil::mapTensorLinearly(g, big);
    Tensor one = g.addConstant<int64_t>(LONGLONG, {2}, {1, 1});
    poputil::mapTensorLinearly(g, one);
    return std::vector<Tensor>{add(g, a, b, p),    sub(g, a, b, p),      mul(g, a, b, p),
                               neg(g, a, p),       abs(g, a, p),         square(g, a, p),
                               div(g, a, b, p),    rem(g, a, b, p),      add(g, big, one, p),
                               sub(g, big, one, p)};
  });
  const double max = kMax, min = kMin;
  EXPECT_THAT(r[0], ElementsAre(min, min + 1, max, 131072, 6));
  EXPECT_THAT(r[1], ElementsAre(max - 1, max, min + 1, 0, 8));
  EXPECT_THAT(r[2], ElementsAre(max, min, min, 0, -7));  // 2^16 x 2^16 = 2^32 wraps to 0
  EXPECT_THAT(r[3], ElementsAre(-max, min, min, -65536, -7));
  EXPECT_THAT(r[4], ElementsAre(max, min, min, 65536, 7));
  EXPECT_THAT(r[5], ElementsAre(1, 0, 0, 0, 49));  // (2^31 - 1)^2 = 1 mod 2^32
  EXPECT_THAT(r[6], ElementsAre(max, min, min, 1, -7));
  EXPECT_THAT(r[7], ElementsAre(0, 0, 0, 0, 0));
  ASSERT_EQ(r[8].size(), 2u);
  ASSERT_EQ(r[9].size(), 2u);
  EXPECT_EQ(r[8][0], static_cast<double>(INT64_MIN));
  EXPECT_EQ(r[9][1], static_cast<double>(INT64_MAX));
}

// scaledAddTo on integers computes in float and saturates at the type's
// range (a float outside it has no integer value in C++).
TEST(ElementwiseTest, IntegerScaledAddSaturates) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor w = g.addVariable(INT, {3}, "w");
    poputil::mapTensorLinearly(g, w);
    p.add(program::Copy(Const(g, {3}, {5, -5, 5}, INT), w));
    scaledAddTo(g, w, Const(g, {3}, {1, 1, -1}, INT), 1e20f, p);
    return std::vector<Tensor>{w};
  });
  EXPECT_THAT(r[0], ElementsAre(INT32_MAX, INT32_MAX, INT32_MIN));
}

TEST(ElementwiseTest, InPlaceSelectAndScaledAdd) {
  auto r = RunBothModes([](Graph& g, program::Sequence& p) {
    Tensor w = g.addVariable(FLOAT, {4}, "w");
    poputil::mapTensorLinearly(g, w);
    p.add(program::Copy(Const(g, {4}, {1, 2, 3, 4}), w));
    Tensor grad = Const(g, {4}, {10, 20, 30, 40});
    scaledAddTo(g, w, grad, -0.5f, p);       // w = {-4, -8, -12, -16}
    addInPlace(g, w, Const(g, {}, {1}), p);   // w = {-3, -7, -11, -15}
    Tensor v = g.addVariable(FLOAT, {4}, "v");
    poputil::mapTensorLinearly(g, v);
    p.add(program::Copy(Const(g, {4}, {1, 2, 3, 4}), v));
    mapInPlace(g, UnaryOpType::SQUARE, v, p);
    // Reads the old values of v, shifted: v[1:] = v[1:] + v[:-1] (BSP).
    mapInPlace(g, BinaryOpType::ADD, v.slice(1, 4), v.slice(0, 3), p);
    Tensor c = Const(g, {4}, {1, 0, 0, 1}, BOOL);
    Tensor s = select(g, w, Const(g, {}, {100}), c, p);
    return std::vector<Tensor>{w, v, s};
  });
  EXPECT_THAT(r[0], ElementsAre(-3, -7, -11, -15));
  EXPECT_THAT(r[1], ElementsAre(1, 5, 13, 25));
  EXPECT_THAT(r[2], ElementsAre(-3, 100, 100, -15));
}

TEST(ElementwiseTest, OneVertexPerTileIntervalOnTheOutputsTile) {
  Graph g(*Target::createIPUTarget(1, "ipu2", 4));
  Tensor a = g.addVariable(FLOAT, {100}, "a");
  poputil::mapTensorLinearly(g, a);
  program::Sequence p;
  Tensor c = add(g, a, a, p, "addA");
  EXPECT_EQ(g.getTileMapping(c), g.getTileMapping(a));
  auto cs = p.node()->children[0].node()->cs;
  EXPECT_EQ(g.getComputeSetVertices(cs).size(), 4u);
  auto e = Engine::create(g, p);
  ASSERT_TRUE(e.ok()) << e.status();
  const ComputeSetProfile& prof = e->getProfile().computeSets[0];
  EXPECT_EQ(prof.name, "addA");
  // 25 floats per tile over 6 workers x 2 lanes: ceil(25/12) = 3 vectors.
  EXPECT_EQ(prof.maxTileCycles, 6u * (20 + 3));
  EXPECT_EQ(prof.staticCost.exchangeCycles, 0u);
  EXPECT_EQ(prof.flops, 100u);  // one addition per element
}

TEST(ElementwiseTest, IntegerArithmeticCountsNoFlops) {
  Graph g(*Target::createIPUTarget(1, "ipu2", 4));
  Tensor a = g.addVariable(INT, {100}, "a");
  poputil::mapTensorLinearly(g, a);
  program::Sequence p;
  add(g, a, a, p, "addInts");
  auto e = Engine::create(g, p);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->getProfile().computeSets[0].flops, 0u);
}

TEST(ElementwiseTest, ErrorsAreNamed) {
  Graph g(*Target::createIPUTarget(1, "ipu2", 4));
  program::Sequence p;
  Tensor a = g.addVariable(FLOAT, {3}, "a");
  Tensor b = g.addVariable(FLOAT, {4}, "b");
  Tensor i = g.addVariable(INT, {3}, "i");
  EXPECT_FALSE(add(g, a, b, p).valid());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("Shapes [3] and [4] cannot be broadcast"));
  Graph g2(*Target::createIPUTarget(1, "ipu2", 4));
  Tensor a2 = g2.addVariable(FLOAT, {3}, "a2");
  Tensor i2 = g2.addVariable(INT, {3}, "i2");
  EXPECT_FALSE(add(g2, a2, i2, p).valid());
  EXPECT_THAT(std::string(g2.status().message()), HasSubstr("cast one first"));
  Graph g3(*Target::createIPUTarget(1, "ipu2", 4));
  Tensor i3 = g3.addVariable(INT, {3}, "i3");
  EXPECT_FALSE(exp(g3, i3, p).valid());
  EXPECT_THAT(std::string(g3.status().message()),
              HasSubstr("EXPONENT is not supported for int tensor 'i3'"));
  (void)i;
}

// An operand whose broadcast to the output's shape cannot be made is an
// error naming the broadcast: 2^40 copies of a dimension (more than a
// broadcast counts: they were truncated to 0), or 2^31 floats when the
// output's 2^62 chars fit but 2^62 floats overflow a view's byte count
// (the broadcast came back as an error tensor whose dimensions were then
// read: found by poplar_sim_fuzzer).
TEST(ElementwiseTest, ABroadcastThatCannotBeMadeIsAnError) {
  {
    Graph g(*Target::createIPUTarget(1, "ipu2", 4));
    program::Sequence p;
    Tensor big = g.addVariable(FLOAT, {size_t{1} << 40}, "big");
    Tensor one = g.addVariable(FLOAT, {1}, "one");
    ASSERT_TRUE(g.status().ok()) << g.status();
    addInPlace(g, big, one, p);
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << g.status();
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("Cannot broadcast 'one' [1] to [1099511627776]: dimension 0 "
                          "would need 1099511627776 copies"));
  }
  {
    Graph g(*Target::createIPUTarget(1, "ipu2", 4));
    program::Sequence p;
    Tensor huge = g.addVariable(CHAR, {size_t{1} << 31, size_t{1} << 31}, "huge");
    Tensor row = g.addVariable(FLOAT, {size_t{1} << 31}, "row");
    ASSERT_TRUE(g.status().ok()) << g.status();
    addInPlace(g, huge, row, p);
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << g.status();
    EXPECT_THAT(std::string(g.status().message()), HasSubstr("overflow the element count"));
  }
}

}  // namespace
}  // namespace popops
}  // namespace poplar_sim
