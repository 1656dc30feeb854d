// Element-wise chains (engine_chains.cc): consecutive element-wise compute
// sets writing one tensor run part by part, with the values, cycles and
// profile of running them one after another.
#include <cmath>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/popops/elementwise.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace {

using ::testing::HasSubstr;
using program::Execute;
using program::Sequence;
using testing::SmallDevice;

// One call of a stage's executor: which stage, on which part of the output.
struct Call {
  char stage;
  size_t begin, end;
  bool operator==(const Call& o) const {
    return stage == o.stage && begin == o.begin && end == o.end;
  }
};

struct CallLog {
  std::mutex mu;
  std::vector<Call> calls;
  void Add(char stage, size_t begin, size_t end) {
    std::lock_guard<std::mutex> lock(mu);
    calls.push_back({stage, begin, end});
  }
};

// A compute set whose element-wise executor logs its calls and sets
// out[i] = f(out[i] or 0, the element of `read` it reads for i).
ComputeSet Stage(Graph& graph, char name, const Tensor& out, const Tensor& read,
                 std::function<float(float, float)> f, bool readReversed,
                 std::shared_ptr<CallLog> log) {
  ComputeSet cs = graph.addComputeSet(std::string(1, name));
  ElementwiseExecutor e;
  e.out = out;
  e.reads = {readReversed ? read.reverse(0) : read};
  e.run = [=](ExecutionContext& ctx, size_t begin, size_t end) {
    log->Add(name, begin, end);
    float* o = static_cast<float*>(ctx.contiguousData(out));
    const float* r = static_cast<const float*>(ctx.contiguousData(read));
    const size_t n = out.numElements();
    for (size_t i = begin; i < end; ++i) o[i] = f(o[i], r[readReversed ? n - 1 - i : i]);
  };
  graph.setElementwiseExecutor(cs, std::move(e));
  return cs;
}

constexpr size_t kN = 6000;  // floats: more than one part of the chain

struct Fixture {
  Device device = SmallDevice(4);
  Graph graph{device.getTarget()};
  Tensor x, out;
  std::shared_ptr<CallLog> log = std::make_shared<CallLog>();

  Fixture() {
    std::vector<float> xv(kN);
    for (size_t i = 0; i < kN; ++i) xv[i] = float(i % 97) - 40;
    x = graph.addConstant<float>(FLOAT, {kN}, xv, "x");
    out = graph.addVariable(FLOAT, {kN}, "out");
    graph.setTileMapping(x, 0);
    graph.setTileMapping(out, 1);
    graph.createHostRead("out", out);
  }

  // A copies x into out, then `middle` as stage B (reading out, reversed
  // or not), then C adds one.
  Sequence CopyMiddlePlusOne(std::function<float(float, float)> middle, bool reversed) {
    return Sequence(
        {Execute(Stage(graph, 'A', out, x, [](float, float r) { return r; }, false, log)),
         Execute(Stage(graph, 'B', out, out, std::move(middle), reversed, log)),
         Execute(Stage(graph, 'C', out, out, [](float o, float) { return o + 1; }, false, log))});
  }

  std::vector<float> Run(const Sequence& prog) {
    EXPECT_TRUE(graph.status().ok()) << graph.status();
    auto engine = Engine::create(graph, prog);
    EXPECT_TRUE(engine.ok()) << engine.status();
    if (!engine.ok()) return {};
    absl::Status s = engine->load(device);
    EXPECT_TRUE(s.ok()) << s;
    s = engine->run(0);
    EXPECT_TRUE(s.ok()) << s;
    std::vector<float> v(kN);
    s = engine->readTensor("out", v.data(), v.data() + kN);
    EXPECT_TRUE(s.ok()) << s;
    return v;
  }
};

// Three stages writing `out` (from x, then in place twice) run part by
// part: each part goes through all three before the next part starts, and
// the parts cover the output once, in order.
TEST(EngineChainsTest, StagesWritingOneTensorRunPartByPart) {
  Fixture t;
  const std::vector<float> v =
      t.Run(t.CopyMiddlePlusOne([](float o, float) { return 2 * o; }, false));
  ASSERT_EQ(v.size(), kN);
  for (size_t i = 0; i < kN; ++i) {
    ASSERT_EQ(v[i], 2 * (float(i % 97) - 40) + 1) << "element " << i;
  }
  const std::vector<Call>& calls = t.log->calls;
  ASSERT_EQ(calls.size() % 3, 0u);
  ASSERT_GE(calls.size(), 6u) << "the output should take more than one part";
  size_t next = 0;
  for (size_t k = 0; k < calls.size(); k += 3) {
    EXPECT_EQ(calls[k], (Call{'A', next, calls[k].end})) << "call " << k;
    EXPECT_EQ(calls[k + 1], (Call{'B', next, calls[k].end})) << "call " << k + 1;
    EXPECT_EQ(calls[k + 2], (Call{'C', next, calls[k].end})) << "call " << k + 2;
    EXPECT_GT(calls[k].end, next);
    next = calls[k].end;
  }
  EXPECT_EQ(next, kN);
}

// A stage that reads the output at other positions than it writes (here
// reversed) cannot join: the stage before it runs over the whole output
// first. The stages from it on form a chain of their own.
TEST(EngineChainsTest, AStageReadingTheOutputElsewhereStartsAfterTheWholeOfIt) {
  Fixture t;
  const std::vector<float> v =
      t.Run(t.CopyMiddlePlusOne([](float o, float r) { return o + r; }, true));
  ASSERT_EQ(v.size(), kN);
  ASSERT_FALSE(t.log->calls.empty());
  EXPECT_EQ(t.log->calls[0], (Call{'A', 0, kN}));
  for (size_t k = 1; k < t.log->calls.size(); ++k) {
    EXPECT_NE(t.log->calls[k].stage, 'A') << "call " << k;
  }
  // B's executor reads the output reversed while writing it part by part
  // (as its contract forbids): the values show that B still ran alone after
  // A, with a chain (B, C) after it in the part-by-part order.
  std::vector<float> expected(kN);
  for (size_t i = 0; i < kN; ++i) expected[i] = float(i % 97) - 40;
  for (size_t i = 0; i < kN; ++i) expected[i] += expected[kN - 1 - i];
  for (size_t i = 0; i < kN; ++i) expected[i] += 1;
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(v[i], expected[i]) << "element " << i;
}

// The layer tail of a product (bias added in place, then Relu in place),
// and a difference with a short repeated block then scaled in place, built
// with popops: the same values, cycles and profile whether the engine runs
// them part by part or vertex by vertex.
TEST(EngineChainsTest, PopopsTailHasTheValuesCyclesAndProfileOfVertices) {
  const size_t rows = 60, cols = 100;
  auto build = [&](Graph& g) {
    std::vector<float> xv(rows * cols), yv(rows * cols), bv(cols);
    for (size_t i = 0; i < xv.size(); ++i) {
      xv[i] = std::sin(0.3f * float(i));
      yv[i] = std::cos(0.7f * float(i));
    }
    for (size_t i = 0; i < cols; ++i) bv[i] = 0.01f * float(i) - 0.5f;
    Tensor x = g.addConstant<float>(FLOAT, {rows, cols}, xv, "x");
    Tensor y = g.addConstant<float>(FLOAT, {rows, cols}, yv, "y");
    Tensor b = g.addConstant<float>(FLOAT, {cols}, bv, "b");
    for (const Tensor& t : {x, y, b}) poputil::mapTensorLinearly(g, t);
    Sequence prog;
    Tensor sum = popops::add(g, x, y, prog, "sum");
    popops::addInPlace(g, sum, b, prog, "bias");
    popops::mapInPlace(g, popops::UnaryOpType::RELU, sum, prog, "relu");
    g.createHostRead("sum", sum);
    // Short repeated blocks, tiled: a row of 3 on the left of a
    // subtraction, then a scalar; parts of the output start at any phase
    // of the row.
    Tensor row = g.addConstant<float>(FLOAT, {3}, {0.25f, -0.5f, 1.f}, "row");
    Tensor half = g.addConstant<float>(FLOAT, {}, {0.5f}, "half");
    poputil::mapTensorLinearly(g, row);
    poputil::mapTensorLinearly(g, half);
    Tensor diff = popops::sub(g, row, x.reshape({rows * cols / 3, 3}), prog, "diff");
    popops::mulInPlace(g, diff, half, prog, "halve");
    g.createHostRead("diff", diff);
    return prog;
  };
  struct Outcome {
    std::vector<float> values, diff;
    uint64_t cycles = 0;
    std::vector<uint64_t> executions;
  };
  auto run = [&](const OptionFlags& options) {
    Device device = SmallDevice(4);
    Graph g(device.getTarget());
    Sequence prog = build(g);
    Outcome o;
    EXPECT_TRUE(g.status().ok()) << g.status();
    auto engine = Engine::create(g, prog, options);
    EXPECT_TRUE(engine.ok()) << engine.status();
    if (!engine.ok()) return o;
    absl::Status s = engine->load(device);
    EXPECT_TRUE(s.ok()) << s;
    s = engine->run(0);
    EXPECT_TRUE(s.ok()) << s;
    o.values.resize(rows * cols);
    s = engine->readTensor("sum", o.values.data(), o.values.data() + o.values.size());
    EXPECT_TRUE(s.ok()) << s;
    o.diff.resize(rows * cols);
    s = engine->readTensor("diff", o.diff.data(), o.diff.data() + o.diff.size());
    EXPECT_TRUE(s.ok()) << s;
    o.cycles = engine->getLastRunStats().cycles;
    for (const auto& cs : engine->getProfile().computeSets) o.executions.push_back(cs.executions);
    return o;
  };
  const Outcome parts = run({});
  const Outcome vertices = run({{"debug.executeVerticesIndividually", "true"}});
  ASSERT_EQ(parts.values.size(), rows * cols);
  ASSERT_EQ(parts.values, vertices.values);
  EXPECT_EQ(parts.cycles, vertices.cycles);
  EXPECT_EQ(parts.executions, vertices.executions);
  ASSERT_EQ(parts.diff, vertices.diff);
  EXPECT_EQ(parts.executions, (std::vector<uint64_t>{1, 1, 1, 1, 1}));
  const float rowv[3] = {0.25f, -0.5f, 1.f};
  for (size_t i = 0; i < rows * cols; ++i) {
    ASSERT_EQ(parts.diff[i], (rowv[i % 3] - std::sin(0.3f * float(i))) * 0.5f) << "element " << i;
  }
  // Row 1, column 7 (positive before the Relu) and column 0 (negative).
  const float x = std::sin(0.3f * float(cols + 7)), y = std::cos(0.7f * float(cols + 7));
  ASSERT_GT(x + y + (0.01f * 7 - 0.5f), 0.f);
  EXPECT_EQ(parts.values[cols + 7], x + y + (0.01f * 7 - 0.5f));
  ASSERT_LT(std::sin(0.3f * float(cols)) + std::cos(0.7f * float(cols)) - 0.5f, 0.f);
  EXPECT_EQ(parts.values[cols], 0.f);
}

// A bulk executor set afterwards replaces the element-wise one: the
// compute set is no stage of a chain, and its bulk work is what runs.
TEST(EngineChainsTest, ABulkExecutorSetAfterwardsReplacesTheElementwiseOne) {
  Fixture t;
  auto copy = [](float, float r) { return r; };
  auto twice = [](float o, float) { return 2 * o; };
  ComputeSet b = Stage(t.graph, 'B', t.out, t.out, twice, false, t.log);
  const Tensor out = t.out;
  t.graph.setBulkExecutor(b, [out](ExecutionContext& ctx) {
    float* o = static_cast<float*>(ctx.contiguousData(out));
    for (size_t i = 0; i < kN; ++i) o[i] = -o[i];
    return absl::OkStatus();
  });
  Sequence prog({Execute(Stage(t.graph, 'A', t.out, t.x, copy, false, t.log)), Execute(b)});
  const std::vector<float> v = t.Run(prog);
  ASSERT_EQ(v.size(), kN);
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(v[i], -(float(i % 97) - 40)) << "element " << i;
  ASSERT_EQ(t.log->calls.size(), 1u);
  EXPECT_EQ(t.log->calls[0], (Call{'A', 0, kN}));
}

// An element-wise executor must name one stride-1 run as its output.
TEST(EngineChainsTest, AnOutputOfSeveralRunsIsRefused) {
  Device device = SmallDevice(4);
  Graph graph(device.getTarget());
  Tensor m = graph.addVariable(FLOAT, {2, 3}, "m");
  graph.setTileMapping(m, 0);
  ComputeSet cs = graph.addComputeSet("transposed");
  ElementwiseExecutor e;
  e.out = m.transpose();
  e.run = [](ExecutionContext&, size_t, size_t) {};
  graph.setElementwiseExecutor(cs, std::move(e));
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(graph.status().message()),
              HasSubstr("setElementwiseExecutor on compute set 'transposed'"));
}

}  // namespace
}  // namespace poplar_sim
