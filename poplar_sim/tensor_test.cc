#include "poplar_sim/tensor.h"

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace poplar_sim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor Var(uint32_t id, std::vector<size_t> shape, Type t = FLOAT) {
  return Tensor::makeVariable(1, id, t, std::move(shape),
                              std::make_shared<std::string>("v"));
}

// Variable element indices in the tensor's row-major order (var 0 only)
// or var*1000 + index when several variables are involved.
std::vector<int64_t> Elems(const Tensor& t) {
  std::vector<int64_t> out;
  for (const ElementRun& r : t.runs()) {
    for (int64_t k = 0; k < r.count; ++k) out.push_back(r.var * 1000 + r.at(k));
  }
  return out;
}

TEST(TensorTest, VariableIsOneRun) {
  Tensor m = Var(0, {4, 3});
  EXPECT_TRUE(m.valid());
  EXPECT_EQ(m.numElements(), 12u);
  EXPECT_EQ(m.runs().size(), 1u);
  EXPECT_TRUE(m.isContiguous());
  EXPECT_EQ(m.shapeToString(), "[4,3]");
}

TEST(TensorTest, SliceAndIndex) {
  Tensor m = Var(0, {4, 3});
  EXPECT_THAT(Elems(m[1]), ElementsAre(3, 4, 5));
  EXPECT_THAT(Elems(m.slice(1, 3, 0)), ElementsAre(3, 4, 5, 6, 7, 8));
  Tensor col = m.slice(1, 2, 1);
  EXPECT_EQ(col.shape(), (std::vector<size_t>{4, 1}));
  EXPECT_THAT(Elems(col), ElementsAre(1, 4, 7, 10));
  EXPECT_EQ(col.runs().size(), 1u);  // one strided run, not four
  EXPECT_EQ(col.runs()[0].stride, 3);
  EXPECT_THAT(Elems(m.slice({1, 1}, {3, 3})), ElementsAre(4, 5, 7, 8));
  EXPECT_THAT(Elems(m.index({2, 1})), ElementsAre(7));
  EXPECT_EQ(m.index({2, 1}).rank(), 0u);
}

// Pieces of a vector that is one run (forward, reversed, strided, a
// broadcast) are the runs a slice of the same elements as a row gives.
TEST(TensorTest, PiecesOfOneRunVectorAreThoseOfTheGeneralSlice) {
  const Tensor m = Var(0, {4, 6});
  const std::vector<Tensor> vectors = {m.flatten(), m.flatten().reverse(0), m.slice(2, 3, 1).flatten(),
                                       m[1].slice(3, 4).broadcast(5, 0), m[2].subSample(2, 0)};
  for (const Tensor& v : vectors) {
    ASSERT_EQ(v.runs().size(), 1u) << Elems(v).size();
    const size_t n = v.numElements();
    for (size_t b = 0; b <= n; ++b) {
      for (size_t e = b; e <= n; ++e) {
        const Tensor piece = v.slice(b, e);
        const Tensor general = v.reshape({1, n}).slice({0, b}, {1, e}).flatten();
        ASSERT_TRUE(piece.valid()) << piece.status();
        EXPECT_EQ(piece.shape(), general.shape());
        ASSERT_EQ(piece.runs().size(), general.runs().size()) << b << ".." << e;
        for (size_t i = 0; i < piece.runs().size(); ++i) {
          const ElementRun& p = piece.runs()[i];
          const ElementRun& g = general.runs()[i];
          EXPECT_EQ(std::make_tuple(p.var, p.start, p.count, p.stride),
                    std::make_tuple(g.var, g.start, g.count, g.stride))
              << b << ".." << e;
        }
        EXPECT_EQ(piece.containsAliases(), general.containsAliases());
      }
    }
    EXPECT_THAT(v.slice(2, n + 1).status().message(), HasSubstr("not within dimension 0"));
  }
}

TEST(TensorTest, ReshapeFlattenTranspose) {
  Tensor m = Var(0, {2, 3});
  EXPECT_EQ(m.reshape({3, 2}).shape(), (std::vector<size_t>{3, 2}));
  EXPECT_THAT(Elems(m.transpose()), ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_THAT(Elems(m.transpose().flatten()), ElementsAre(0, 3, 1, 4, 2, 5));
  // Transposing back gives the original order again.
  EXPECT_THAT(Elems(m.transpose().transpose()),
              ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_EQ(m.transpose().transpose().runs().size(), 1u);
  Tensor t3 = Var(0, {2, 3, 4});
  EXPECT_EQ(t3.flatten(1, 3).shape(), (std::vector<size_t>{2, 12}));
  // A slice of a transpose: column 1 of m = row 1 of m^T.
  EXPECT_THAT(Elems(m.transpose()[1]), ElementsAre(1, 4));
}

TEST(TensorTest, DimShuffleAndRoll) {
  Tensor t = Var(0, {2, 3, 4});
  Tensor s = t.dimShuffle({2, 0, 1});
  EXPECT_EQ(s.shape(), (std::vector<size_t>{4, 2, 3}));
  // s[k][i][j] = t[i][j][k] = 12i + 4j + k.
  EXPECT_THAT(Elems(s[1]), ElementsAre(1, 5, 9, 13, 17, 21));
  EXPECT_EQ(t.dimRoll(2, 0).shape(), s.shape());
  EXPECT_THAT(Elems(t.dimRoll(2, 0)), Elems(s));
}

TEST(TensorTest, BroadcastExpandSqueeze) {
  Tensor v = Var(0, {3});
  Tensor b = v.expand({0}).broadcast(2, 0);
  EXPECT_EQ(b.shape(), (std::vector<size_t>{2, 3}));
  EXPECT_THAT(Elems(b), ElementsAre(0, 1, 2, 0, 1, 2));
  EXPECT_TRUE(b.containsAliases());
  Tensor c = v.expand({1}).broadcast(2, 1);  // [3,2]
  EXPECT_THAT(Elems(c), ElementsAre(0, 0, 1, 1, 2, 2));
  // Broadcasting a dimension of size > 1 repeats it.
  EXPECT_THAT(Elems(v.broadcast(2, 0)), ElementsAre(0, 1, 2, 0, 1, 2));
  Tensor e = v.expand({0, 2});
  EXPECT_EQ(e.shape(), (std::vector<size_t>{1, 3, 1}));
  EXPECT_EQ(e.squeeze({0, 2}).shape(), (std::vector<size_t>{3}));
  EXPECT_FALSE(v.containsAliases());
}

// One run repeats an element only when its stride is 0; several runs may
// overlap one another.
TEST(TensorTest, ContainsAliasesOfSingleAndSeveralRuns) {
  Tensor m = Var(0, {4, 3});
  EXPECT_FALSE(m.slice({0, 1}, {4, 2}).containsAliases());  // a column, stride 3
  EXPECT_FALSE(m.flatten().reverse(0).containsAliases());   // stride -1
  EXPECT_FALSE(m[2].containsAliases());
  EXPECT_TRUE(m[2].slice(1, 2).broadcast(4, 0).containsAliases());  // stride 0
  EXPECT_TRUE(concat(m[1], m[1]).containsAliases());
  EXPECT_FALSE(concat(m[1], m[3]).containsAliases());
}

TEST(TensorTest, ReverseAndSubSample) {
  Tensor v = Var(0, {5});
  EXPECT_THAT(Elems(v.reverse(0)), ElementsAre(4, 3, 2, 1, 0));
  EXPECT_THAT(Elems(v.subSample(2, 0)), ElementsAre(0, 2, 4));
  EXPECT_THAT(Elems(v.reverse(0).subSample(2, 0)), ElementsAre(4, 2, 0));
}

TEST(TensorTest, Concat) {
  Tensor a = Var(0, {2, 2});
  Tensor b = Var(1, {2, 2});
  EXPECT_THAT(Elems(concat(a, b, 0)),
              ElementsAre(0, 1, 2, 3, 1000, 1001, 1002, 1003));
  Tensor c1 = concat(a, b, 1);
  EXPECT_EQ(c1.shape(), (std::vector<size_t>{2, 4}));
  EXPECT_THAT(Elems(c1), ElementsAre(0, 1, 1000, 1001, 2, 3, 1002, 1003));
  // Views of a concat reach into both variables.
  EXPECT_THAT(Elems(c1.slice(1, 3, 1)), ElementsAre(1, 1000, 3, 1002));
  // Re-joining the halves of one variable gives one run again.
  EXPECT_EQ(concat(a.slice(0, 1), a.slice(1, 2)).runs().size(), 1u);
}

TEST(TensorTest, ErrorsAreStickyAndNamed) {
  Tensor m = Var(0, {4, 3});
  Tensor bad = m.slice(2, 5, 0);
  EXPECT_FALSE(bad.valid());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("dimension 0 of size 4"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("'v'"));
  // Views of an invalid tensor stay invalid with the first error.
  EXPECT_EQ(bad.flatten().transpose().status(), bad.status());
  EXPECT_FALSE(m.reshape({5}).valid());
  EXPECT_FALSE(m.dimShuffle({0, 0}).valid());
  EXPECT_FALSE(m.squeeze({0}).valid());
  EXPECT_FALSE(m[4].valid());
  EXPECT_FALSE(concat(m, Var(1, {4, 2}), 0).valid());
  EXPECT_FALSE(concat(m, Var(1, {4, 3}, INT), 0).valid());
  EXPECT_FALSE(Tensor().valid());
}

TEST(TensorTest, LargeTransposeCostsRunsPerRowNotPerElement) {
  Tensor m = Var(0, {1024, 1024});
  Tensor t = m.transpose();
  EXPECT_EQ(t.runs().size(), 1024u);
  Tensor block = m.slice({0, 0}, {1024, 22});
  EXPECT_EQ(block.runs().size(), 1024u);
}

}  // namespace
}  // namespace poplar_sim
