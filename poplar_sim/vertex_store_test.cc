#include "poplar_sim/vertex_store.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace poplar_sim {
namespace internal {
namespace {

using ::testing::HasSubstr;

Tensor Var(uint32_t id, std::vector<size_t> shape, const std::string& name) {
  return Tensor::makeVariable(1, id, FLOAT, std::move(shape),
                              std::make_shared<const std::string>(name));
}

std::vector<std::tuple<uint32_t, int64_t, int64_t, int64_t>> Key(
    const std::vector<ElementRun>& runs) {
  std::vector<std::tuple<uint32_t, int64_t, int64_t, int64_t>> out;
  for (const ElementRun& r : runs) out.emplace_back(r.var, r.start, r.count, r.stride);
  return out;
}

// `rounds` times over: a test::SumVector vertex per tensor, its "in"
// connected to it. The vertices in order.
std::vector<uint32_t> ConnectInTurn(VertexStore& s, const std::vector<Tensor>& tensors,
                                    int rounds) {
  std::vector<uint32_t> vs;
  for (int round = 0; round < rounds; ++round) {
    for (const Tensor& t : tensors) {
      vs.push_back(s.addVertex("test::SumVector", 0));
      s.connect(vs.back(), "in", t);
    }
  }
  return vs;
}

TEST(VertexStoreTest, ResolvesTheTypeOnceAndKeepsItsFields) {
  VertexStore s;
  const uint32_t a = s.addVertex("test::AddVectors", 2);
  const uint32_t b = s.addVertex("test::AddVectors", 3);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.typeId(a), s.typeId(b));
  EXPECT_EQ(s.numTypes(), 1u);
  const VertexTypeInfo& t = s.typeInfo(s.typeId(a));
  EXPECT_TRUE(t.registered);
  ASSERT_EQ(t.fields.size(), 3u);
  EXPECT_EQ(t.fields[2].name, "out");
  EXPECT_EQ(t.fields[2].direction, FieldDirection::OUTPUT);
  EXPECT_EQ(s.computeSet(b), 3u);
  EXPECT_EQ(s.tile(a), TileMapping::kUnmapped);
  s.setTile(a, 7);
  EXPECT_EQ(s.tile(a), 7u);
  EXPECT_FALSE(s.perfEstimate(a).has_value());
  s.setPerfEstimate(b, 42);
  EXPECT_EQ(s.perfEstimate(b), 42u);
}

TEST(VertexStoreTest, UnknownTypeHasNoFields) {
  VertexStore s;
  const uint32_t v = s.addVertex("NoSuchVertex", 0);
  EXPECT_FALSE(s.typeInfo(s.typeId(v)).registered);
  EXPECT_TRUE(s.typeInfo(s.typeId(v)).fields.empty());
}

// The runs of a connection are exactly the tensor's, however they are
// packed: a column block of a matrix (one run per row), a transpose
// (strided runs), a broadcast and a concatenation of views.
TEST(VertexStoreTest, ConnectionRunsEqualTheTensorRuns) {
  const Tensor m = Var(0, {50, 40}, "m");
  const Tensor n = Var(1, {8}, "n");
  const std::vector<Tensor> views = {
      m.slice({3, 5}, {40, 17}).flatten(),
      m.transpose().slice({2, 0}, {6, 50}).flatten(),
      n.slice(2, 3).broadcast(6, 0),
      n.reshape({2, 4}).broadcast(3, 0).flatten(),
      concat({m.slice({0, 0}, {4, 3}).flatten(), n, m.slice({10, 1}, {12, 2}).flatten(),
              n.reverse(0)}),
      m[4][7].flatten(),
  };
  for (size_t i = 0; i < views.size(); ++i) {
    VertexStore s;
    const uint32_t v = s.addVertex("test::AddVectors", 0);
    s.connect(v, "a", views[i]);
    const ConnectionView c = s.connection(v, 0);
    ASSERT_TRUE(c.connected());
    EXPECT_EQ(Key(c.runs()), Key(views[i].runs())) << "view " << i;
    EXPECT_EQ(c.numElements(), views[i].numElements()) << i;
    EXPECT_EQ(c.shape(), views[i].shape()) << i;
    EXPECT_EQ(c.containsAliases(), views[i].containsAliases()) << i;
    EXPECT_EQ(c.debugName(), views[i].getDebugName()) << i;
  }
}

// What issue 6 needs: a vertex costs bytes per field, not per row of the
// tensors it reads. A column block of a matrix, one run per row, is one
// pattern.
TEST(VertexStoreTest, AColumnBlockIsOnePattern) {
  const Tensor m = Var(0, {1000, 64}, "m");
  VertexStore s;
  const uint32_t v = s.addVertex("test::AddVectors", 0);
  const Tensor block = m.slice({0, 8}, {1000, 16}).flatten();
  ASSERT_EQ(block.runs().size(), 1000u);
  s.connect(v, "a", block);
  EXPECT_EQ(s.numRunPatterns(), 1u);
  EXPECT_EQ(s.connection(v, 0).runs().size(), 1000u);
  // It costs what a connection of one element costs.
  VertexStore one;
  one.connect(one.addVertex("test::AddVectors", 0), "a", m.slice({0, 8}, {1, 9}).flatten());
  EXPECT_EQ(s.hostBytes(), one.hostBytes());
}

TEST(VertexStoreTest, EqualRunsAreStoredOnce) {
  const Tensor m = Var(0, {100, 64}, "m");
  const Tensor left = m.slice({0, 0}, {100, 8}).flatten();
  const Tensor right = m.slice({0, 8}, {100, 16}).flatten();
  VertexStore s;
  std::vector<uint32_t> vs;
  for (int i = 0; i < 4; ++i) {
    const uint32_t v = s.addVertex("test::AddVectors", 0);
    s.connect(v, "a", left);
    s.connect(v, "b", i % 2 ? left : right);
    vs.push_back(v);
  }
  EXPECT_EQ(s.numRunPatterns(), 2u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(Key(s.connection(vs[i], 0).runs()), Key(left.runs())) << i;
    EXPECT_EQ(Key(s.connection(vs[i], 1).runs()), Key((i % 2 ? left : right).runs())) << i;
  }
}

// Patterns are stored in 32-bit fields when their numbers fit; larger ones
// (a variable of more than 4G elements, a stride past 2G) are kept whole.
TEST(VertexStoreTest, PatternsWithLargeNumbersKeepThem) {
  const Tensor huge = Var(0, {3, 3'000'000'000}, "huge");
  const Tensor rows = Var(1, {4, 8}, "rows");
  const std::vector<Tensor> tensors = {
      huge.slice({0, 5}, {3, 6}).flatten(),                          // stride 3e9
      huge.slice({2, 2'999'999'990}, {3, 3'000'000'000}).flatten(),  // start 9e9
      huge.slice({0, 2'999'999'998}, {3, 3'000'000'000}).flatten(),  // delta 3e9
      rows.reverse(0).flatten(),                                     // delta -8
      rows.slice({0, 1}, {4, 2}).reverse(0).flatten()};              // stride -8
  VertexStore s;
  const std::vector<uint32_t> vs = ConnectInTurn(s, tensors, 2);
  for (size_t k = 0; k < vs.size(); ++k) {
    EXPECT_EQ(Key(s.connection(vs[k], 0).runs()), Key(tensors[k % tensors.size()].runs())) << k;
  }
}

TEST(VertexStoreTest, FieldsAreIndexedInTypeOrder) {
  VertexStore s;
  const uint32_t v = s.addVertex("test::ScaleVector", 0);
  const Tensor x = Var(0, {4}, "x");
  s.connect(v, "v", x);
  EXPECT_TRUE(s.connection(v, 0).connected());
  EXPECT_FALSE(s.param(v, 1).has_value());
  s.setParam(v, "k", 2.5);
  EXPECT_EQ(s.param(v, 1), 2.5);
  s.connect(v, "k", x);  // a Param field ignores connections
  EXPECT_FALSE(s.connection(v, 1).connected());
  EXPECT_EQ(s.param(v, 1), 2.5);
  EXPECT_TRUE(s.checkFieldNames(v, [] { return std::string("v0"); }).ok());
}

TEST(VertexStoreTest, AParamKeepsEveryBitOfItsValue) {
  VertexStore s;
  const uint32_t v = s.addVertex("test::ScaleVector", 0);
  for (const double value : {-1.0 / 3.0, 5e-324, -0.0, 1e308}) {
    s.setParam(v, "k", value);
    const std::optional<double> kept = s.param(v, 1);
    ASSERT_TRUE(kept.has_value()) << "no value kept for " << value;
    EXPECT_EQ(std::memcmp(&*kept, &value, sizeof(double)), 0) << value;
  }
}

// Connections share a shape, name, type and aliasing with the ones made
// just before; more distinct ones than it remembers, in turn, must each
// keep their own.
TEST(VertexStoreTest, EachConnectionKeepsItsShapeNameAndType) {
  auto var = [](uint32_t id, Type type, std::vector<size_t> shape, const char* name) {
    return Tensor::makeVariable(1, id, type, std::move(shape),
                                std::make_shared<const std::string>(name));
  };
  // Each differs from the one before in one respect.
  const std::vector<Tensor> tensors = {
      var(0, FLOAT, {2, 3}, "a"), var(1, FLOAT, {2, 3}, "b"),
      var(2, HALF, {2, 3}, "b"),  var(3, HALF, {2}, "b"),
      var(4, HALF, {3}, "b"),     var(5, HALF, {6}, "b"),
      var(6, HALF, {3}, "b").broadcast(2, 0), var(7, FLOAT, {6}, "b")};
  VertexStore s;
  const std::vector<uint32_t> vs = ConnectInTurn(s, tensors, 3);
  for (size_t k = 0; k < vs.size(); ++k) {
    const Tensor& t = tensors[k % tensors.size()];
    const ConnectionView c = s.connection(vs[k], 0);
    EXPECT_EQ(c.shape(), t.shape()) << k;
    EXPECT_EQ(c.numElements(), t.numElements()) << k;
    EXPECT_EQ(c.debugName(), t.getDebugName()) << k;
    EXPECT_EQ(c.elementType(), t.elementType()) << k;
    EXPECT_EQ(c.containsAliases(), t.containsAliases()) << k;
  }
}

TEST(VertexStoreTest, ReconnectingReplaces) {
  VertexStore s;
  const uint32_t v = s.addVertex("test::SumVector", 0);
  s.connect(v, "in", Var(0, {4}, "first"));
  s.connect(v, "in", Var(1, {2, 3}, "second"));
  const ConnectionView c = s.connection(v, 0);
  EXPECT_EQ(c.debugName(), "second");
  EXPECT_EQ(c.shapeToString(), "[2,3]");
  ASSERT_EQ(c.runs().size(), 1u);
  EXPECT_EQ(c.runs()[0].var, 1u);
}

TEST(VertexStoreTest, NamesThatAreNotFieldsAreReportedFirstByName) {
  VertexStore s;
  const uint32_t v = s.addVertex("test::AddVectors", 0);
  const uint32_t w = s.addVertex("test::AddVectors", 0);
  const Tensor x = Var(0, {4}, "x");
  s.setParam(v, "a", 1.0);  // an Input, not a Param
  s.connect(v, "zeta", x);
  s.connect(v, "bogus", x);
  auto describe = [] { return std::string("vertex 0"); };
  absl::Status st = s.checkFieldNames(v, describe);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("vertex 0 has no field 'bogus'; its fields are: a, b, out"));
  EXPECT_EQ(absl::OkStatus(), s.checkFieldNames(w, describe));
  s.setParam(w, "nope", 1.0);
  EXPECT_THAT(std::string(s.checkFieldNames(w, describe).message()),
              HasSubstr("setInitialValue on 'nope', which is not a Param field"));
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
