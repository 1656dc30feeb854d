// Bad input to poplar_sim used directly (Graph, Tensor, Engine, streams,
// vertices, tile mapping, devices; programs are in
// poplar_sim_programs_test.cc): null and backwards host buffers, sizes of
// 0, 2^31 and 2^63 and shapes whose products overflow, NaN, handles of
// another graph, calls in the wrong order. Each case asserts the status
// code and the words that name the culprit, then that the object (or, for
// a graph whose error is sticky by design, the device) still works.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "poplar_sim/host_threads.h"
#include "poplar_sim/profile.h"
#include "tests/bad_input/poplar_sim_bad_input.h"

namespace poplar_sim {
namespace {

using namespace program;  // NOLINT: the Poplar style
using namespace bad_input;  // NOLINT: the shared checks and fixture
using ::testing::HasSubstr;

// --- ExecutionContext::writtenDuringRun ------------------------------------

// A bulk executor asks about hostile tensors (invalid, empty, a reshape to
// an overflowing shape, a tensor of another graph whose variable does not
// exist here) from four host threads at once: "not known" (true) for what
// the engine cannot place, false for what holds nothing, no crash; the
// engine then runs again.
TEST_F(PoplarSimBadInputTest, WrittenDuringRunOfHostileTensorsFromFourThreads) {
  Device device = testing::SmallDevice(4);
  Graph graph(device.getTarget());
  Tensor weights = graph.addVariable(FLOAT, {8}, "weights");
  Tensor out = graph.addVariable(FLOAT, {8}, "out");
  graph.setTileMapping(weights, 0);
  graph.setTileMapping(out, 0);
  Graph other(device.getTarget());
  for (int i = 0; i < 5; ++i) other.addVariable(FLOAT, {2}, absl::StrCat("v", i));
  Tensor foreign = other.addVariable(FLOAT, {2}, "foreign");  // variable 5: none here
  // A view with a shape whose product overflows is an invalid tensor.
  Tensor huge = weights.reshape({k2p63, k2p63});
  ComputeSet cs = graph.addComputeSet("ask");
  VertexRef v = graph.addVertex(cs, "test::AddVectors", {{"a", weights}, {"b", weights}, {"out", out}});
  graph.setTileMapping(v, 0);
  auto answers = std::make_shared<std::vector<std::vector<bool>>>(4);
  graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) -> absl::Status {
    ctx.hostThreads()->parallelFor(4, [&](unsigned t) {
      for (int round = 0; round < 100; ++round) {
        (*answers)[t] = {ctx.writtenDuringRun(Tensor::makeError(absl::InternalError("none"))),
                         ctx.writtenDuringRun(weights.slice(4, 4)),
                         ctx.writtenDuringRun(huge), ctx.writtenDuringRun(foreign),
                         ctx.writtenDuringRun(weights), ctx.writtenDuringRun(out)};
      }
    });
    return absl::OkStatus();
  });
  Sequence prog({Execute(cs)});
  auto engine = Engine::create(graph, prog);
  ASSERT_TRUE(engine.ok()) << engine.status();
  SpawnedHostThreads threads(4);
  engine->setHostThreads(&threads);
  absl::Status s = engine->load(device);
  ASSERT_TRUE(s.ok()) << s;
  for (int run = 0; run < 2; ++run) {
    s = engine->run(0);
    ASSERT_TRUE(s.ok()) << s;
    for (unsigned t = 0; t < 4; ++t) {
      EXPECT_THAT((*answers)[t], ::testing::ElementsAre(true, false, true, true, false, true))
          << "thread " << t << ", run " << run;
    }
  }
  engine->setHostThreads(nullptr);
}

// --- Graph::setElementwiseExecutor ------------------------------------------
// An element-wise executor whose compute set or output is not of the graph,
// whose output is invalid or not one stride-1 run, or that has no function,
// is refused with InvalidArgument naming the call; the device still runs.
// An output of no elements is accepted, and stages over it run (nothing).
TEST_F(PoplarSimBadInputTest, ElementwiseExecutorsOfHostileOutputs) {
  auto refused = [&](const std::function<void(Graph&, Graph&)>& make,
                     const std::vector<std::string>& words) {
    Graph graph(device_.getTarget()), other(device_.getTarget());
    make(graph, other);
    ExpectError(graph.status(), absl::StatusCode::kInvalidArgument, words);
  };
  auto noop = [](ExecutionContext&, size_t, size_t) {};
  refused(
      [&](Graph& g, Graph& other) {
        Tensor t = g.addVariable(FLOAT, {4}, "t");
        g.setElementwiseExecutor(other.addComputeSet("foreign"), {t, {}, noop});
      },
      {"setElementwiseExecutor", "another graph"});
  refused(
      [&](Graph& g, Graph& other) {
        g.setElementwiseExecutor(g.addComputeSet("cs"),
                                 {other.addVariable(FLOAT, {4}, "theirs"), {}, noop});
      },
      {"setElementwiseExecutor on compute set 'cs'", "contiguous tensor of this graph"});
  refused(
      [&](Graph& g, Graph&) {
        g.setElementwiseExecutor(
            g.addComputeSet("cs"),
            {g.addVariable(FLOAT, {4}, "t").reshape({k2p63, k2p63}), {}, noop});
      },
      {"setElementwiseExecutor on compute set 'cs'"});
  refused(
      [&](Graph& g, Graph&) {
        g.setElementwiseExecutor(g.addComputeSet("cs"),
                                 {g.addVariable(FLOAT, {4}, "t").reverse(0), {}, noop});
      },
      {"one stride-1 run"});
  refused(
      [&](Graph& g, Graph&) {
        g.setElementwiseExecutor(g.addComputeSet("cs"), {g.addVariable(FLOAT, {4}, "t"), {}, {}});
      },
      {"the executor a function"});
  ExpectEngineWorks();

  Graph graph(device_.getTarget());
  Tensor empty = graph.addVariable(FLOAT, {0, 3}, "empty");
  ComputeSet a = graph.addComputeSet("a"), b = graph.addComputeSet("b");
  auto calls = std::make_shared<int>(0);
  auto count = [calls](ExecutionContext&, size_t begin, size_t end) { *calls += end > begin; };
  graph.setElementwiseExecutor(a, {empty, {empty}, count});
  graph.setElementwiseExecutor(b, {empty, {empty}, count});
  ASSERT_TRUE(graph.status().ok()) << graph.status();
  auto engine = Engine::create(graph, Sequence({Execute(a), Execute(b)}));
  ASSERT_TRUE(engine.ok()) << engine.status();
  absl::Status s = engine->load(device_);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->run(0);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(*calls, 0);
}

// --- Streams and host buffers -----------------------------------------------

TEST_F(PoplarSimBadInputTest, ConnectStreamNullBuffer) {
  ExpectError(engine_->connectStream("in", nullptr), absl::StatusCode::kInvalidArgument,
              {"connectStream 'in'", "null"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectStreamEndBeforeBegin) {
  std::vector<float> buf(8);
  ExpectError(engine_->connectStream("in", buf.data() + 8, buf.data()),
              absl::StatusCode::kInvalidArgument,
              {"connectStream 'in'", "ends 32 bytes before it begins"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectStreamOnePointerNull) {
  std::vector<float> buf(4);
  ExpectError(engine_->connectStream("out", nullptr, buf.data() + 4),
              absl::StatusCode::kInvalidArgument, {"connectStream 'out'", "begin pointer is null"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectStreamBothNullIsAnEmptyBuffer) {
  ExpectError(engine_->connectStream("in", nullptr, nullptr),
              absl::StatusCode::kInvalidArgument, {"connectStream 'in'", "0 bytes"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectStreamUnknownHandle) {
  std::vector<float> buf(4);
  ExpectError(engine_->connectStream("inn", buf.data(), buf.data() + 4),
              absl::StatusCode::kNotFound, {"'inn'"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectStreamPartialRecord) {
  std::vector<float> buf(6);
  ExpectError(engine_->connectStream("in", buf.data(), buf.data() + 6),
              absl::StatusCode::kInvalidArgument, {"connectStream 'in'", "24 bytes", "16 bytes"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectStreamToEmptyCallback) {
  ExpectError(engine_->connectStreamToCallback("in", nullptr),
              absl::StatusCode::kInvalidArgument, {"connectStreamToCallback 'in'", "empty"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectStreamToRecordsNullRecord) {
  ExpectError(engine_->connectStreamToRecords("in", {absl::Span<const char>(nullptr, 16)}),
              absl::StatusCode::kInvalidArgument, {"connectStreamToRecords 'in'", "record 0", "null"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectStreamToRecordsWrongSize) {
  std::vector<char> rec(15);
  ExpectError(engine_->connectStreamToRecords("in", {absl::Span<const char>(rec)}),
              absl::StatusCode::kInvalidArgument, {"connectStreamToRecords 'in'", "15 bytes"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectStreamToRecordsEmptyAndWrongDirection) {
  ExpectError(engine_->connectStreamToRecords("in", {}), absl::StatusCode::kInvalidArgument,
              {"connectStreamToRecords 'in'", "no records"});
  std::vector<char> rec(16);
  ExpectError(engine_->connectStreamToRecords("out", {absl::Span<const char>(rec)}),
              absl::StatusCode::kInvalidArgument, {"connectStreamToRecords 'out'", "goes to the host"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, RunWithUnconnectedStream) {
  ExpectError(engine_->run(0), absl::StatusCode::kFailedPrecondition,
              {"Stream 'in' is not connected"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, WriteTensorBackwardsAndNull) {
  std::vector<float> buf(4);
  ExpectError(engine_->writeTensor("x", buf.data() + 4, buf.data()),
              absl::StatusCode::kInvalidArgument, {"writeTensor 'x'", "before it begins"});
  ExpectError(engine_->writeTensor("x", buf.data(), nullptr),
              absl::StatusCode::kInvalidArgument, {"writeTensor 'x'", "end pointer is null"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ReadTensorNullWrongSizeAndUnknown) {
  std::vector<float> buf(4);
  ExpectError(engine_->readTensor("y", nullptr, buf.data() + 4),
              absl::StatusCode::kInvalidArgument, {"readTensor 'y'", "begin pointer is null"});
  ExpectError(engine_->readTensor("y", buf.data(), buf.data() + 3),
              absl::StatusCode::kInvalidArgument, {"readTensor 'y'", "12 bytes", "holds 16"});
  ExpectError(engine_->readTensor("x", buf.data(), buf.data() + 4),
              absl::StatusCode::kNotFound, {"no tensor called 'x'", "createHostRead"});
  ExpectEngineWorks();
}

// --- Engine calls in the wrong order --------------------------------------------

TEST_F(PoplarSimBadInputTest, RunBeforeLoad) {
  auto e = Engine::create(doubler_.graph, doubler_.Prog());
  ASSERT_TRUE(e.ok()) << e.status();
  ExpectError(e->run(0), absl::StatusCode::kFailedPrecondition, {"not loaded", "Engine::load"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, RunProgramOutOfRange) {
  ExpectError(engine_->run(1), absl::StatusCode::kInvalidArgument,
              {"program 1 does not exist", "1 program(s)"});
  ExpectError(engine_->run(std::numeric_limits<unsigned>::max()),
              absl::StatusCode::kInvalidArgument, {"4294967295 does not exist"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, RunAfterDetachAndAfterAnotherEngine) {
  device_.detach();
  ExpectError(engine_->run(0), absl::StatusCode::kFailedPrecondition, {"was detached"});
  {
    absl::Status call_status = device_.attach();
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  auto other = Engine::create(doubler_.graph, doubler_.Prog());
  ASSERT_TRUE(other.ok()) << other.status();
  {
    absl::Status call_status = other->load(device_);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  ExpectError(engine_->run(0), absl::StatusCode::kFailedPrecondition,
              {"now holds engine", "load(device) again"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, LoadOnEmptyOrForeignDevice) {
  Device empty;
  ExpectError(engine_->load(empty), absl::StatusCode::kInvalidArgument, {"empty Device"});
  Device bigger = testing::SmallDevice(8);
  ExpectError(engine_->load(bigger), absl::StatusCode::kInvalidArgument,
              {"4 tiles", "8 tiles"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, UnknownAndMalformedEngineOptions) {
  ExpectError(Engine::create(doubler_.graph, doubler_.Prog(), {{"debug.bogus", "1"}}).status(),
              absl::StatusCode::kInvalidArgument, {"'debug.bogus'"});
  ExpectError(Engine::create(doubler_.graph, doubler_.Prog(),
                             {{"debug.allowOutOfMemory", "maybe"}}).status(),
              absl::StatusCode::kInvalidArgument, {"debug.allowOutOfMemory", "maybe"});
  ExpectError(Engine::create(doubler_.graph, doubler_.Prog(),
                             {{"debug.maxTraceEvents", "-1"}}).status(),
              absl::StatusCode::kInvalidArgument, {"debug.maxTraceEvents", "-1"});
  // The host-lanes threshold: negative, beyond uint64, not a number.
  for (const char* bad : {"-1", "18446744073709551616", "lots", ""}) {
    ExpectError(Engine::create(doubler_.graph, doubler_.Prog(),
                               {{"debug.minLaneWork", bad}}).status(),
                absl::StatusCode::kInvalidArgument,
                {"debug.minLaneWork", "non-negative integer"});
  }
  ExpectEngineWorks();
}

// --- Shapes whose products overflow --------------------------------------------

TEST_F(PoplarSimBadInputTest, VariableWhoseElementCountOverflows) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(FLOAT, {k2p32, k2p32, 2}, "huge");
  EXPECT_FALSE(t.valid());
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument,
                   {"tensor 'huge'", "[4294967296,4294967296,2]", "overflows"});
}

TEST_F(PoplarSimBadInputTest, VariableWhoseBytesOverflow) {
  Graph g(device_.getTarget());
  EXPECT_FALSE(g.addVariable(LONGLONG, {k2p63 / 4}, "wide").valid());
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument,
                   {"tensor 'wide'", "[2305843009213693952]", "long long bytes"});
}

TEST_F(PoplarSimBadInputTest, VariableOfMinusOneElements) {
  Graph g(device_.getTarget());
  EXPECT_FALSE(g.addVariable(CHAR, {kMinus1}, "minus_one").valid());
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"tensor 'minus_one'", "[18446744073709551615]"});
}

TEST_F(PoplarSimBadInputTest, ConstantWhoseShapeOverflows) {
  Graph g(device_.getTarget());
  EXPECT_FALSE(g.addConstant<float>(FLOAT, {k2p63, 2}, 1.0f, "bad_const").valid());
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"tensor 'bad_const'", "[9223372036854775808,2]"});
}

TEST_F(PoplarSimBadInputTest, ConstantLargerThanTheTarget) {
  // Found by poplar_sim_fuzzer: the values were allocated on the host first.
  Graph g(device_.getTarget());
  EXPECT_FALSE(g.addConstant<float>(FLOAT, {size_t{1} << 36}, 1.0f, "fill").valid());
  ExpectGraphError(g, absl::StatusCode::kResourceExhausted,
                   {"constant 'fill' float[68719476736]", "target's 2555904 bytes"});
}

TEST_F(PoplarSimBadInputTest, ConstantWithTooManyValuesOrNullValues) {
  Graph g(device_.getTarget());
  EXPECT_FALSE(g.addConstant<float>(FLOAT, {2}, {1, 2, 3}, "three").valid());
  ExpectError(g.status(), absl::StatusCode::kInvalidArgument, {"addConstant 'three'", "3 values", "[2]"});
  Graph h(device_.getTarget());
  EXPECT_FALSE(h.addConstant<float>(FLOAT, {4}, absl::Span<const float>(nullptr, 4), "nul").valid());
  ExpectGraphError(h, absl::StatusCode::kInvalidArgument, {"addConstant 'nul'", "null"});
}

TEST_F(PoplarSimBadInputTest, ReshapeWhoseProductWrapsToTheSameCount) {
  Graph g(device_.getTarget());
  Tensor empty = g.addVariable(FLOAT, {0}, "empty");
  // 2^62 x 4 wraps to 0 in 64 bits: the old check saw "0 == 0".
  Tensor r = empty.reshape({size_t{1} << 62, 4});
  ExpectError(r.status(), absl::StatusCode::kInvalidArgument,
              {"reshape to [4611686018427387904,4]", "tensor 'empty'"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, BroadcastWhoseCountOverflows) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(CHAR, {size_t{1} << 40, 1}, "tall");
  Tensor b = t.broadcast(std::numeric_limits<unsigned>::max(), 1);
  ExpectError(b.status(), absl::StatusCode::kInvalidArgument,
              {"broadcast: 4294967295 copies", "tensor 'tall'"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, BroadcastOfMillionsOfCopies) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(FLOAT, {2}, "pair");
  Tensor b = t.broadcast(static_cast<unsigned>(k2p31), 0);
  ExpectError(b.status(), absl::StatusCode::kResourceExhausted,
              {"2147483648 copies of tensor 'pair'", "element runs"});
  // Also of an empty tensor (found by poplar_sim_fuzzer: no runs to count,
  // but a vector of 2^31 copies).
  Tensor e = g.addVariable(FLOAT, {0}, "none").broadcast(static_cast<unsigned>(k2p31), 0);
  ExpectError(e.status(), absl::StatusCode::kResourceExhausted, {"copies of tensor 'none'"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, ViewNeedingTooManyRuns) {
  Graph g(device_.getTarget());
  Tensor m = g.addVariable(CHAR, {size_t{1} << 30, 2}, "tall_matrix");
  Tensor column = m.slice(0, 1, 1);
  ExpectError(column.status(), absl::StatusCode::kResourceExhausted,
              {"tensor 'tall_matrix'", "[1073741824,2]", "element runs"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, ConcatWhoseCountOverflows) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(CHAR, {size_t{1} << 61}, "half");
  Tensor c = concat({t, t, t, t}, 0);
  ExpectError(c.status(), absl::StatusCode::kInvalidArgument,
              {"concat of 4 tensors", "overflows", "tensor 'half'"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, StreamWhoseRecordBytesOverflow) {
  Graph g(device_.getTarget());
  DataStream s = g.addHostToDeviceFIFO("huge_in", FLOAT, k2p63);
  EXPECT_FALSE(s.valid());
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"Stream 'huge_in'", "overflow"});
}

// --- Views out of range -----------------------------------------------------------

TEST_F(PoplarSimBadInputTest, SliceBackwardsAndIndexOutOfRange) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(FLOAT, {4, 3}, "m");
  ExpectError(t.slice(3, 1, 0).status(), absl::StatusCode::kInvalidArgument, {"slice", "tensor 'm'"});
  ExpectError(t[kMinus1].status(), absl::StatusCode::kInvalidArgument, {"index", "tensor 'm'"});
  ExpectError(t.slice(0, 1, 7).status(), absl::StatusCode::kInvalidArgument,
              {"dimension 7", "tensor 'm'"});
  ExpectDeviceWorks();
}

// --- Tile mapping ------------------------------------------------------------------

TEST_F(PoplarSimBadInputTest, TileOutOfRangeNamesTheTensor) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(FLOAT, {4}, "weights");
  g.setTileMapping(t, 4);
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument,
                   {"setTileMapping of tensor 'weights' [4]", "tile 4 is out of range", "4 tiles"});
}

TEST_F(PoplarSimBadInputTest, TileMinusOneNamesTheTensor) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(FLOAT, {4}, "bias");
  g.setTileMapping(t, static_cast<unsigned>(-1));
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument,
                   {"tensor 'bias'", "tile 4294967295 is out of range"});
}

TEST_F(PoplarSimBadInputTest, MappingIntervalBackwards) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(FLOAT, {4}, "v");
  TileToTensorMapping m(4);
  m[1].push_back(Interval{3, 1});
  g.setTileMapping(t, m);
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"[3, 1)", "tensor 'v'"});
}

TEST_F(PoplarSimBadInputTest, MapTensorOfAnotherGraph) {
  Graph g(device_.getTarget());
  g.setTileMapping(doubler_.x, 0);
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"tensor 'x'", "belongs to another graph"});
}

TEST_F(PoplarSimBadInputTest, TileIntervalsOfAnotherGraphsOrAnInvalidTensor) {
  Graph g(device_.getTarget());
  EXPECT_TRUE(g.getTileIntervals(doubler_.x).empty());
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument,
                   {"getTileIntervals: tensor 'x'", "belongs to another graph"});
  Graph h(device_.getTarget());
  Tensor wrapped = h.addVariable(FLOAT, {4}, "v").reshape({3});  // an invalid view
  EXPECT_TRUE(h.getTileIntervals(wrapped).empty());
  ExpectGraphError(h, absl::StatusCode::kInvalidArgument, {"reshape to [3]", "tensor 'v'"});
  ExpectEngineWorks();
}

// A HostThreads of the program's own that claims 0 threads or 2^32 - 1 of
// them: compilation uses 1 to 64 shares and gives the engine of one thread.
class ClaimedThreads : public HostThreads {
 public:
  explicit ClaimedThreads(unsigned claimed) : claimed_(claimed) {}
  unsigned numThreads() const override { return claimed_; }
  void parallelFor(unsigned n, const std::function<void(unsigned)>& fn) override {
    calls_ += n;
    for (unsigned i = 0; i < n; ++i) fn(i);
  }
  unsigned calls() const { return calls_; }

 private:
  unsigned claimed_;
  unsigned calls_ = 0;
};

TEST_F(PoplarSimBadInputTest, CompileThreadsClaimingNoneOrBillions) {
  Graph g(device_.getTarget());
  Sequence prog;
  for (int i = 0; i < 100; ++i) {  // enough compute sets to use the threads
    Tensor t = g.addVariable(FLOAT, {4}, "t" + std::to_string(i));
    g.setTileMapping(t, i % 4);
    ComputeSet cs = g.addComputeSet("scale" + std::to_string(i));
    VertexRef v = g.addVertex(cs, "test::ScaleVector", {{"v", t}});
    g.setInitialValue(v["k"], 2.0);
    g.setTileMapping(v, (i + 1) % 4);
    prog.add(Execute(cs));
  }
  absl::StatusOr<Engine> alone = Engine::create(g, prog);
  ASSERT_TRUE(alone.ok()) << alone.status();
  const std::string expected = profileToJson(alone->getProfile());
  for (unsigned claimed : {0u, 0xffffffffu}) {
    ClaimedThreads threads(claimed);
    absl::StatusOr<Engine> e = Engine::create(g, prog, {}, &threads);
    ASSERT_TRUE(e.ok()) << claimed << ": " << e.status();
    EXPECT_EQ(profileToJson(e->getProfile()), expected) << claimed;
    EXPECT_LE(threads.calls(), 64u) << claimed;
  }
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, VertexTileOutOfRangeNamesTheVertex) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(INT, {}, "counter");
  g.setTileMapping(t, 0);
  ComputeSet cs = g.addComputeSet("count");
  VertexRef v = g.addVertex(cs, "test::IncrementInt", {{"v", t}});
  g.setTileMapping(v, 9);
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument,
                   {"vertex 0 (type 'test::IncrementInt', compute set 'count')", "tile 9"});
}

TEST_F(PoplarSimBadInputTest, UnmappedTensorAtEngineCreation) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(FLOAT, {4}, "loose");
  ExpectError(Engine::create(g, WriteUndef(t)).status(), absl::StatusCode::kFailedPrecondition,
              {"Tensor 'loose'", "not mapped"});
  ExpectDeviceWorks();
}

// --- Compute sets and vertices -------------------------------------------------

TEST_F(PoplarSimBadInputTest, AddVertexToComputeSetOfAnotherGraph) {
  Graph g(device_.getTarget());
  g.addVertex(doubler_.cs, "test::IncrementInt");
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument,
                   {"addVertex 'test::IncrementInt'", "compute set 'double'", "another graph"});
}

TEST_F(PoplarSimBadInputTest, AddVertexToEmptyComputeSetHandle) {
  Graph g(device_.getTarget());
  g.addVertex(ComputeSet{}, "test::IncrementInt");
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"an empty compute set handle"});
}

TEST_F(PoplarSimBadInputTest, ExecuteComputeSetOfAnotherGraph) {
  Graph g(device_.getTarget());
  ExpectError(Engine::create(g, Execute(doubler_.cs)).status(), absl::StatusCode::kInvalidArgument,
              {"Execute", "compute set 'double' belongs to another graph"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, ComputeSetVerticesOfAnotherGraph) {
  Graph g(device_.getTarget());
  ComputeSet foreign = doubler_.cs;
  foreign.id = 1000;  // beyond this graph's compute sets (used to crash)
  EXPECT_TRUE(g.getComputeSetVertices(foreign).empty());
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"getComputeSetVertices", "compute set 'double'"});
}

TEST_F(PoplarSimBadInputTest, UnknownVertexType) {
  Graph g(device_.getTarget());
  g.addVertex(g.addComputeSet("cs"), "test::NoSuchVertex");
  ExpectGraphError(g, absl::StatusCode::kNotFound, {"'test::NoSuchVertex'", "POPLAR_SIM_REGISTER_VERTEX"});
}

TEST_F(PoplarSimBadInputTest, ConnectFieldOfAVertexOfAnotherGraph) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(INT, {}, "t");
  VertexRef foreign = doubler_.graph.getComputeSetVertices(doubler_.cs)[0];
  g.connect(foreign["v"], t);
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"connect field 'v'", "another graph"});
}

TEST_F(PoplarSimBadInputTest, EmptyVertexHandle) {
  Graph g(device_.getTarget());
  g.setPerfEstimate(VertexRef{}, 10);
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"setPerfEstimate", "empty handle"});
}

TEST_F(PoplarSimBadInputTest, ParamSetToNaNOrInf) {
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    Graph g(device_.getTarget());
    Tensor v = g.addVariable(FLOAT, {4}, "v");
    VertexRef s = g.addVertex(g.addComputeSet("scale"), "test::ScaleVector", {{"v", v}});
    g.setInitialValue(s["k"], bad);
    ExpectGraphError(g, absl::StatusCode::kInvalidArgument,
                     {"setInitialValue of field 'k'", "type 'test::ScaleVector'", "not a finite number"});
  }
}

TEST_F(PoplarSimBadInputTest, VertexFieldIndexedPastItsEnd) {
  // test::SumVector sums `in`; connecting an Output<float> as a vector is
  // refused, so the checked-mode case is in poplar_sim/engine_test.cc
  // (CheckedVertexFieldsTest); here the field shape check names the field.
  Graph g(device_.getTarget());
  Tensor in = g.addVariable(FLOAT, {4}, "in");
  Tensor out = g.addVariable(FLOAT, {2}, "out");
  g.setTileMapping(in, 0);
  g.setTileMapping(out, 0);
  ComputeSet cs = g.addComputeSet("sum");
  g.setTileMapping(g.addVertex(cs, "test::SumVector", {{"in", in}, {"out", out}}), 0);
  ExpectError(Engine::create(g, Execute(cs)).status(), absl::StatusCode::kInvalidArgument,
              {"Field 'out'", "type 'test::SumVector'", "2 elements"});
  ExpectDeviceWorks();
}

// --- Streams and host access in the graph ---------------------------------------

TEST_F(PoplarSimBadInputTest, DuplicateStreamHandle) {
  Graph g(device_.getTarget());
  g.addHostToDeviceFIFO("feed", FLOAT, 4);
  g.addDeviceToHostFIFO("feed", FLOAT, 4);
  ExpectGraphError(g, absl::StatusCode::kAlreadyExists, {"'feed'", "unique"});
}

TEST_F(PoplarSimBadInputTest, StreamCopyOfAnotherGraphsStream) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(FLOAT, {4}, "t");
  g.setTileMapping(t, 0);
  DataStream foreign = doubler_.in;
  ExpectError(Engine::create(g, Copy(foreign, t)).status(), absl::StatusCode::kInvalidArgument,
              {"stream 'in'", "another graph"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, StreamCopyOfWrongSize) {
  Graph g(device_.getTarget());
  Tensor t = g.addVariable(FLOAT, {5}, "five");
  g.setTileMapping(t, 0);
  DataStream s = g.addHostToDeviceFIFO("four", FLOAT, 4);
  ExpectError(Engine::create(g, Copy(s, t)).status(), absl::StatusCode::kInvalidArgument,
              {"stream 'four'", "'five' float[5]"});
  ExpectDeviceWorks();
}

// --- Virtual graphs ------------------------------------------------------------------

TEST_F(PoplarSimBadInputTest, VirtualGraphRangeBackwards) {
  Graph g(device_.getTarget());
  g.createVirtualGraph(3, 1);
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"tiles [3, 1)", "4 tiles"});
}

TEST_F(PoplarSimBadInputTest, VirtualGraphForIPUOutOfRange) {
  Graph g(device_.getTarget());
  g.createVirtualGraphForIPU(static_cast<unsigned>(k2p31));
  ExpectGraphError(g, absl::StatusCode::kInvalidArgument, {"IPU 2147483648 is out of range"});
}

// --- Devices ---------------------------------------------------------------------------

TEST_F(PoplarSimBadInputTest, DeviceManagerOfZeroOrTooManyIPUs) {
  ExpectError(DeviceManager::create(0).status(), absl::StatusCode::kInvalidArgument,
              {"at least one IPU"});
  ExpectError(DeviceManager::create(static_cast<unsigned>(k2p31)).status(),
              absl::StatusCode::kInvalidArgument, {"2147483648 IPUs", "1024"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, UnknownArchitectureAndDeviceId) {
  ExpectError(DeviceManager::create(2, "ipu9").status(), absl::StatusCode::kNotFound,
              {"ipu9"});
  absl::StatusOr<DeviceManager> m = DeviceManager::create(2);
  ASSERT_TRUE(m.ok()) << m.status();
  ExpectError(m->getDevice(999).status(), absl::StatusCode::kNotFound, {"999", "0-2"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, IPUModelOfBadSizes) {
  IPUModel tiles;
  tiles.tilesPerIPU = static_cast<unsigned>(k2p31);
  ExpectError(tiles.createDevice().status(), absl::StatusCode::kInvalidArgument,
              {"tilesPerIPU = 2147483648"});
  IPUModel ipus;
  ipus.numIPUs = std::numeric_limits<unsigned>::max();
  ExpectError(ipus.createDevice().status(), absl::StatusCode::kInvalidArgument,
              {"4294967295 IPUs"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, AttachAnIPUAnotherDeviceHolds) {
  absl::StatusOr<DeviceManager> m = DeviceManager::create(2);
  ASSERT_TRUE(m.ok()) << m.status();
  Device single = *m->getDevice(0);
  Device pair = *m->getDevice(2);
  {
    absl::Status call_status = pair.attach();
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  ExpectError(single.attach(), absl::StatusCode::kFailedPrecondition, {"device 2"});
  pair.detach();
  absl::Status s = single.attach();
  EXPECT_TRUE(s.ok()) << s;
  ExpectDeviceWorks();
}

}  // namespace
}  // namespace poplar_sim
