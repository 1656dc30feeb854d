#include "poplar_sim/engine.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/status_macros.h"
#include "poplar_sim/testing/test_vertices.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using program::Copy;
using program::Execute;
using program::Repeat;
using program::Sequence;
using testing::SmallDevice;
using testing::SmallTarget;

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// The vendor's first tutorials: variables on tiles, a compute set adding
// vectors tile by tile, streams in and out.
TEST(EngineTest, AddVectorsOverFourTilesWithStreams) {
  Device device = SmallDevice(4);
  Graph graph(device.getTarget());
  Tensor a = graph.addVariable(FLOAT, {4, 3}, "a");
  Tensor b = graph.addVariable(FLOAT, {4, 3}, "b");
  Tensor c = graph.addVariable(FLOAT, {4, 3}, "c");
  ComputeSet cs = graph.addComputeSet("add");
  for (unsigned t = 0; t < 4; ++t) {
    graph.setTileMapping(a[t], t);
    graph.setTileMapping(b[t], t);
    graph.setTileMapping(c[t], t);
    VertexRef v = graph.addVertex(cs, "test::AddVectors",
                                  {{"a", a[t]}, {"b", b[t]}, {"out", c[t]}});
    graph.setTileMapping(v, t);
  }
  DataStream inA = graph.addHostToDeviceFIFO("a", FLOAT, 12);
  DataStream inB = graph.addHostToDeviceFIFO("b", FLOAT, 12);
  DataStream out = graph.addDeviceToHostFIFO("c", FLOAT, 12);
  Sequence prog({Copy(inA, a), Copy(inB, b), Execute(cs), Copy(c, out)});
  ASSERT_TRUE(graph.status().ok()) << graph.status();

  auto engine = Engine::create(graph, prog);
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<float> ha(12), hb(12), hc(12, -1);
  for (int i = 0; i < 12; ++i) {
    ha[i] = i;
    hb[i] = 100 * i;
  }
  {
    absl::Status call_status = engine->connectStream("a", ha.data(), ha.data() + 12);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  {
    absl::Status call_status = engine->connectStream("b", hb.data(), hb.data() + 12);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  {
    absl::Status call_status = engine->connectStream("c", hc.data(), hc.data() + 12);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  {
    absl::Status call_status = engine->load(device);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  {
    absl::Status status = engine->run(0);
    ASSERT_TRUE(status.ok()) << status;
  }
  for (int i = 0; i < 12; ++i) EXPECT_EQ(hc[i], 101.0f * i);
  const RunStats& s = engine->getLastRunStats();
  EXPECT_EQ(s.cost.hostBytesToDevice, 96u);
  EXPECT_EQ(s.cost.hostBytesFromDevice, 48u);
  EXPECT_GT(s.seconds, 0);
  EXPECT_EQ(s.cycles, s.cost.cycles() + s.overheadCycles);
}

// A bulk executor learns which of its tensors some step of the programs
// writes: a variable only read stays put during a run (a product may then
// split its work without regard to which thread last wrote it).
TEST(EngineTest, BulkExecutorsKnowWhichTensorsTheRunWrites) {
  Device device = SmallDevice(4);
  Graph graph(device.getTarget());
  Tensor weights = graph.addVariable(FLOAT, {4}, "weights");  // only read
  Tensor updated = graph.addVariable(FLOAT, {4}, "updated");  // a compute set writes it
  Tensor fed = graph.addVariable(FLOAT, {4}, "fed");          // a stream writes it
  Tensor copied = graph.addVariable(FLOAT, {4}, "copied");    // a copy writes it
  for (const Tensor& t : {weights, updated, fed, copied}) graph.setTileMapping(t, 0);
  ComputeSet update = graph.addComputeSet("update");
  VertexRef v = graph.addVertex(update, "test::AddVectors",
                                {{"a", weights}, {"b", fed}, {"out", updated}});
  graph.setTileMapping(v, 0);
  ComputeSet look = graph.addComputeSet("look");
  VertexRef w = graph.addVertex(look, "test::AddVectors",
                                {{"a", weights}, {"b", copied}, {"out", updated}});
  graph.setTileMapping(w, 0);
  auto written = std::make_shared<std::vector<bool>>();
  graph.setBulkExecutor(look, [=](ExecutionContext& ctx) -> absl::Status {
    *written = {ctx.writtenDuringRun(weights), ctx.writtenDuringRun(updated),
                ctx.writtenDuringRun(fed), ctx.writtenDuringRun(copied),
                ctx.writtenDuringRun(concat(weights, updated)),
                ctx.writtenDuringRun(weights.slice(0, 0)),
                ctx.writtenDuringRun(Tensor::makeError(absl::InternalError("no tensor")))};
    return absl::OkStatus();
  });
  DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, 4);
  Sequence prog({Copy(in, fed), Execute(update), Copy(updated, copied), Execute(look)});
  ASSERT_TRUE(graph.status().ok()) << graph.status();
  auto engine = Engine::create(graph, prog);
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<float> host(4, 1.f);
  absl::Status s = engine->connectStream("in", host.data(), host.data() + 4);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->load(device);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->run(0);
  ASSERT_TRUE(s.ok()) << s;
  // A view of a written variable is written; an empty view holds nothing
  // to write; of an invalid tensor nothing is known.
  EXPECT_THAT(*written, ElementsAre(false, true, true, true, true, false, true));
}

TEST(EngineTest, RunNeedsTheEngineLoadedAndCountsSwitches) {
  Device device = SmallDevice(2);
  Graph graph(device.getTarget());
  Tensor x = graph.addVariable(INT, {}, "x");
  graph.setTileMapping(x, 0);
  ComputeSet cs = graph.addComputeSet("inc");
  graph.setTileMapping(graph.addVertex(cs, "test::IncrementInt", {{"v", x}}), 0);
  graph.createHostRead("x", x);
  auto e1 = Engine::create(graph, Execute(cs));
  auto e2 = Engine::create(graph, Sequence());
  ASSERT_EQ(absl::OkStatus(), e1.status());
  ASSERT_EQ(absl::OkStatus(), e2.status());
  absl::Status notLoaded = e1->run(0);
  EXPECT_EQ(notLoaded.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Msg(notLoaded), HasSubstr("Engine::load"));
  {
    absl::Status status = e1->load(device);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = e1->run(0);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = e2->load(device);
    ASSERT_TRUE(status.ok()) << status;
  }
  absl::Status switched = e1->run(0);
  EXPECT_EQ(switched.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Msg(switched), HasSubstr("now holds engine"));
  {
    absl::Status status = e1->load(device);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = e1->run(0);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(device.getNumEngineLoads(), 3u);
  // Values stay in the engine across the switch: two increments.
  int32_t value = 0;
  {
    absl::Status status = e1->readTensor("x", &value, &value + 1);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(value, 2);
  EXPECT_GT(e1->getLoadCost().bytes, 0u);
  EXPECT_GT(e1->getLoadCost().seconds, 0);
  EXPECT_EQ(e1->run(1).code(), absl::StatusCode::kInvalidArgument);
}

TEST(EngineTest, LoadChecksAttachmentAndTarget) {
  Graph graph(SmallTarget(4));
  auto engine = Engine::create(graph, Sequence());
  ASSERT_TRUE(engine.ok()) << engine.status();
  Device other = SmallDevice(8);
  EXPECT_THAT(Msg(engine->load(other)), HasSubstr("compiled for 1 ipu2"));
  DeviceManager m = DeviceManager::createDeviceManager();
  Device hw = *m.getDevice(0);
  Graph full(hw.getTarget());
  auto e2 = Engine::create(full, Sequence());
  ASSERT_TRUE(e2.ok()) << e2.status();
  EXPECT_EQ(e2->load(hw).code(), absl::StatusCode::kFailedPrecondition);
  {
    absl::Status call_status = hw.attach();
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  {
    absl::Status status = e2->load(hw);
    EXPECT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = e2->run();
    EXPECT_TRUE(status.ok()) << status;
  }
  hw.detach();
  EXPECT_EQ(e2->run().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(EngineTest, SeveralProgramsAndHostReadWrite) {
  Device device = SmallDevice(2);
  Graph graph(device.getTarget());
  Tensor x = graph.addVariable(INT, {}, "x");
  graph.setTileMapping(x, 1);
  ComputeSet cs = graph.addComputeSet("inc");
  graph.setTileMapping(graph.addVertex(cs, "test::IncrementInt", {{"v", x}}), 1);
  graph.createHostWrite("x", x);
  graph.createHostRead("x", x);
  Tensor zero = graph.addConstant<int32_t>(INT, {}, 0, "zero");
  graph.setTileMapping(zero, 0);
  auto engine = Engine::create(graph, {Execute(cs), Copy(zero, x)}, {},
                               {"increment", "reset"});
  ASSERT_TRUE(engine.ok()) << engine.status();
  EXPECT_EQ(engine->getNumPrograms(), 2u);
  {
    absl::Status call_status = engine->load(device);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  int32_t v = 41;
  {
    absl::Status call_status = engine->writeTensor("x", &v, &v + 1);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  {
    absl::Status status = engine->run(0);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status call_status = engine->readTensor("x", &v, &v + 1);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(v, 42);
  {
    absl::Status status = engine->run(1);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = engine->run(0);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status call_status = engine->readTensor("x", &v, &v + 1);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(v, 1);
  EXPECT_EQ(engine->getCumulativeStats().runs, 3u);
  EXPECT_EQ(engine->getCumulativeStats().cost.hostBytesToDevice, 4u);
  EXPECT_EQ(engine->getCumulativeStats().cost.hostBytesFromDevice, 8u);
  int64_t wrongSize = 0;
  EXPECT_THAT(Msg(engine->readTensor("x", &wrongSize, &wrongSize + 1)),
              HasSubstr("8 bytes but the tensor holds 4"));
  EXPECT_EQ(engine->readTensor("nope", &v, &v + 1).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(engine->getProfile().runs[0].name, "increment");
}

// A copy from one element broadcast (an accumulator's zeroing) fills the
// destination with that element, whatever its bytes: zero, one repeated
// byte (a memset), or different bytes (copied and doubled); odd lengths
// too, and a single-byte type.
TEST(EngineTest, BroadcastCopiesFillWithTheElement) {
  for (float value : {0.f, 1.f, -2.5f, 2.3694278e-38f /* bytes 0x01010101 */}) {
    for (size_t n : {size_t{1}, size_t{7}, size_t{1000}}) {
      Device device = SmallDevice(1);
      Graph graph(device.getTarget());
      Tensor c = graph.addConstant<float>(FLOAT, {1}, value, "c");
      graph.setTileMapping(c, 0);
      Tensor acc = graph.addVariable(FLOAT, {n}, "acc");
      graph.setTileMapping(acc, 0);
      graph.createHostRead("acc", acc);
      auto engine = Engine::create(graph, {Copy(c.broadcast(n, 0), acc)});
      ASSERT_TRUE(engine.ok()) << engine.status();
      absl::Status status = engine->load(device);
      ASSERT_TRUE(status.ok()) << status;
      status = engine->run(0);
      ASSERT_TRUE(status.ok()) << status;
      std::vector<float> got(n, 99.f);
      status = engine->readTensor("acc", got.data(), got.data() + n);
      ASSERT_TRUE(status.ok()) << status;
      EXPECT_EQ(got, std::vector<float>(n, value)) << "value " << value << ", " << n;
    }
  }
  Device device = SmallDevice(1);
  Graph graph(device.getTarget());
  Tensor t = graph.addConstant<bool>(BOOL, {1}, true, "t");
  graph.setTileMapping(t, 0);
  Tensor flags = graph.addVariable(BOOL, {5}, "flags");
  graph.setTileMapping(flags, 0);
  graph.createHostRead("flags", flags);
  auto engine = Engine::create(graph, {Copy(t.broadcast(5, 0), flags)});
  ASSERT_TRUE(engine.ok()) << engine.status();
  absl::Status status = engine->load(device);
  ASSERT_TRUE(status.ok()) << status;
  status = engine->run(0);
  ASSERT_TRUE(status.ok()) << status;
  bool got[5] = {false, false, false, false, false};
  status = engine->readTensor("flags", got, got + 5);
  ASSERT_TRUE(status.ok()) << status;
  for (bool b : got) EXPECT_TRUE(b);
}

TEST(EngineValidationTest, UnmappedTensorIsNamed) {
  Graph graph(SmallTarget(2));
  Tensor w = graph.addVariable(FLOAT, {10}, "weights");
  graph.setTileMapping(w.slice(0, 4), 0);
  auto e = Engine::create(graph, Sequence());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Msg(e.status()), HasSubstr("'weights' float[10] has 6 of its 10"));
  EXPECT_THAT(Msg(e.status()), HasSubstr("element 4"));
}

class VertexValidationTest : public ::testing::Test {
 protected:
  VertexValidationTest() : graph_(SmallTarget(2)) {
    x_ = graph_.addVariable(FLOAT, {4}, "x");
    y_ = graph_.addVariable(FLOAT, {4}, "y");
    i_ = graph_.addVariable(INT, {4}, "i");
    for (Tensor t : {x_, y_, i_}) graph_.setTileMapping(t, 0);
    cs_ = graph_.addComputeSet("cs");
  }
  absl::Status Compile() {
    return Engine::create(graph_, Execute(cs_)).status();
  }
  Graph graph_;
  Tensor x_, y_, i_;
  ComputeSet cs_;
};

TEST_F(VertexValidationTest, UnmappedVertex) {
  graph_.addVertex(cs_, "test::AddVectors", {{"a", x_}, {"b", x_}, {"out", y_}});
  EXPECT_THAT(Msg(Compile()),
              HasSubstr("vertex 0 (type 'test::AddVectors', compute set 'cs') "
                        "is not mapped to a tile"));
}

TEST_F(VertexValidationTest, UnconnectedField) {
  VertexRef v = graph_.addVertex(cs_, "test::AddVectors", {{"a", x_}, {"out", y_}});
  graph_.setTileMapping(v, 0);
  EXPECT_THAT(Msg(Compile()), HasSubstr("Input field 'b' of vertex 0"));
  EXPECT_THAT(Msg(Compile()), HasSubstr("not connected"));
}

TEST_F(VertexValidationTest, WrongFieldTypeAndUnknownField) {
  VertexRef v = graph_.addVertex(cs_, "test::AddVectors",
                                 {{"a", i_}, {"b", x_}, {"out", y_}});
  graph_.setTileMapping(v, 0);
  EXPECT_THAT(Msg(Compile()), HasSubstr("holds float but is connected to "
                                        "tensor 'i' of type int"));
  Graph g2(SmallTarget(2));
  Tensor t = g2.addVariable(FLOAT, {1}, "t");
  g2.setTileMapping(t, 0);
  ComputeSet cs = g2.addComputeSet("c2");
  g2.setTileMapping(g2.addVertex(cs, "test::NoEstimate",
                                 {{"in", t}, {"out", t}, {"bogus", t}}), 0);
  EXPECT_THAT(Msg(Engine::create(g2, Execute(cs)).status()),
              HasSubstr("has no field 'bogus'; its fields are: in, out"));
}

TEST_F(VertexValidationTest, ScalarFieldShapeMismatch) {
  VertexRef v = graph_.addVertex(cs_, "test::SumVector", {{"in", x_}, {"out", y_}});
  graph_.setTileMapping(v, 0);
  EXPECT_THAT(Msg(Compile()), HasSubstr("holds one element but is connected "
                                        "to tensor 'y' of shape [4]"));
}

TEST_F(VertexValidationTest, MissingEstimateThenPerfEstimate) {
  VertexRef v = graph_.addVertex(cs_, "test::NoEstimate", {{"in", x_[0]}, {"out", y_[0]}});
  graph_.setTileMapping(v, 0);
  EXPECT_THAT(Msg(Compile()), HasSubstr("call Graph::setPerfEstimate"));
  graph_.setPerfEstimate(v, 20);
  auto e = Engine::create(graph_, Execute(cs_));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->getProfile().computeSets[0].maxTileCycles, 6u * 20);
}

TEST_F(VertexValidationTest, ParamMustBeSet) {
  VertexRef v = graph_.addVertex(cs_, "test::ScaleVector", {{"v", x_}});
  graph_.setTileMapping(v, 0);
  EXPECT_THAT(Msg(Compile()), HasSubstr("Param field 'k'"));
  graph_.setInitialValue(v["k"], 2.0);
  EXPECT_EQ(absl::OkStatus(), Compile());
}

TEST_F(VertexValidationTest, OutputsMustNotAlias) {
  VertexRef v = graph_.addVertex(
      cs_, "test::AddVectors",
      {{"a", x_}, {"b", x_}, {"out", y_.slice(0, 1).broadcast(4, 0)}});
  graph_.setTileMapping(v, 0);
  EXPECT_THAT(Msg(Compile()), HasSubstr("outputs must not alias"));
}

TEST_F(VertexValidationTest, BuildErrorsAreSticky) {
  graph_.setTileMapping(x_, 7);  // only 2 tiles
  graph_.addVertex(cs_, "NoSuchVertex");
  EXPECT_THAT(Msg(graph_.status()), HasSubstr("tile 7 is out of range"));
  EXPECT_THAT(Msg(Compile()), HasSubstr("tile 7 is out of range"));
}

TEST(EngineValidationTest, CopyShapeMismatchAndForeignTensor) {
  Graph graph(SmallTarget(2));
  Tensor a = graph.addVariable(FLOAT, {4}, "a");
  Tensor b = graph.addVariable(FLOAT, {5}, "b");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(b, 0);
  absl::Status s = Engine::create(graph, Copy(a, b)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(s), HasSubstr("Copy 'a' float[4] -> 'b' float[5]"));
  Graph other(SmallTarget(2));
  Tensor f = other.addVariable(FLOAT, {4}, "foreign");
  other.setTileMapping(f, 0);
  EXPECT_THAT(Msg(Engine::create(graph, Copy(a, f)).status()),
              HasSubstr("belongs to another graph"));
  EXPECT_THAT(Msg(Engine::create(graph, Copy(a.slice(0, 9), a)).status()),
              HasSubstr("dimension 0 of size 4"));
  Sequence loop;
  loop.add(loop);
  EXPECT_THAT(Msg(Engine::create(graph, loop).status()),
              HasSubstr("contains itself"));
  // A cycle through another program is refused too (and, being refused,
  // leaks nothing: the nodes are shared, a cycle would never be freed).
  Sequence outer, inner;
  outer.add(inner);
  inner.add(Repeat(2, outer));
  EXPECT_THAT(Msg(Engine::create(graph, outer).status()),
              HasSubstr("contains itself"));
}

TEST(EngineMemoryTest, OutOfMemoryNamesTileAndLargestUsers) {
  Graph graph(SmallTarget(4));
  // 638976 bytes per tile; 170000 floats = 680000 bytes.
  Tensor big = graph.addVariable(FLOAT, {170000}, "big_weights");
  graph.setTileMapping(big, 1);
  Tensor small = graph.addVariable(FLOAT, {100}, "bias");
  graph.setTileMapping(small, 1);
  auto e = Engine::create(graph, Sequence());
  ASSERT_EQ(e.status().code(), absl::StatusCode::kResourceExhausted);
  const std::string m = Msg(e.status());
  EXPECT_THAT(m, HasSubstr("Out of memory on tile 1: "));
  EXPECT_THAT(m, HasSubstr(" bytes used, 638976 available"));
  EXPECT_THAT(m, HasSubstr("variable 'big_weights': 680000 bytes"));
  EXPECT_THAT(m, HasSubstr("variable 'bias': 400 bytes"));
  EXPECT_LT(m.find("big_weights"), m.find("bias"));
  // Spread over the tiles it fits.
  Graph g2(SmallTarget(4));
  Tensor spread = g2.addVariable(FLOAT, {170000}, "w");
  for (unsigned t = 0; t < 4; ++t) {
    g2.setTileMapping(spread.slice(t * 42500, (t + 1) * 42500), t);
  }
  auto ok = Engine::create(g2, Sequence());
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->getTileMemory()[2].variables, 170000u);
  // The IPU Model can be told to go on, for a report.
  auto allowed = Engine::create(graph, Sequence(), {{"debug.allowOutOfMemory", "true"}});
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  EXPECT_GT(allowed->getTileMemory()[1].total(), 638976u);
}

// The compute sets' users of the worst tile are ranked with the variables
// and the code: the largest five, equal sizes in the order the graph made
// them.
TEST(EngineMemoryTest, OutOfMemoryRanksComputeSetUsers) {
  Graph graph(SmallTarget(2));
  Tensor big = graph.addVariable(FLOAT, {160000}, "big");  // 640000 bytes
  graph.setTileMapping(big, 1);
  Tensor in = graph.addVariable(FLOAT, {4}, "in");
  graph.setTileMapping(in, 0);
  Tensor b = graph.addConstant<float>(FLOAT, {4}, 1.0f, "b");
  graph.setTileMapping(b, 1);
  const unsigned counts[] = {3, 1, 4, 1, 5, 2, 5};
  Sequence prog;
  for (unsigned i = 0; i < 7; ++i) {
    ComputeSet cs = graph.addComputeSet("s" + std::to_string(i));
    Tensor out = graph.addVariable(FLOAT, {counts[i], 4}, "out");
    graph.setTileMapping(out, 1);
    for (unsigned v = 0; v < counts[i]; ++v) {
      // Each vertex receives `in` from tile 0: 16 bytes of exchange buffer.
      graph.setTileMapping(
          graph.addVertex(cs, "test::AddVectors", {{"a", in}, {"b", b}, {"out", out[v]}}), 1);
    }
    prog.add(Execute(cs));
  }
  auto e = Engine::create(graph, prog);
  ASSERT_EQ(e.status().code(), absl::StatusCode::kResourceExhausted);
  const IpuArchitecture& a = graph.getTarget().arch();
  const uint64_t state = a.vertexStateBytes + 3 * a.fieldDescriptorBytes;
  const uint64_t code = a.codeBytesPerVertexType + 8 * a.controlCodeBytesPerStep;
  EXPECT_THAT(Msg(e.status()),
              HasSubstr(absl::StrCat("Largest users on that tile: variable 'big': 640000 bytes; ",
                                     "code (estimate): ", code, " bytes; ",
                                     "vertex state of compute set 's4': ", 5 * state, " bytes; ",
                                     "vertex state of compute set 's6': ", 5 * state, " bytes; ",
                                     "vertex state of compute set 's2': ", 4 * state,
                                     " bytes. ")));
}

TEST(EngineMemoryTest, HalfTensorsTakeHalfTheBytesOfFloatOnes) {
  Graph graph(SmallTarget(2));
  Tensor h = graph.addVariable(HALF, {8}, "h");
  Tensor f = graph.addVariable(FLOAT, {8}, "f");
  Tensor hc = graph.addConstant<float>(HALF, {4}, 1.0f, "hc");
  Tensor fc = graph.addConstant<float>(FLOAT, {4}, 1.0f, "fc");
  graph.setTileMapping(h, 0);
  graph.setTileMapping(hc, 0);
  graph.setTileMapping(f, 1);
  graph.setTileMapping(fc, 1);
  auto e = Engine::create(graph, program::Sequence());
  ASSERT_TRUE(e.ok()) << e.status();
  const auto& mem = e->getTileMemory();
  EXPECT_EQ(mem[0].variables, 16u);
  EXPECT_EQ(mem[1].variables, 32u);
  EXPECT_EQ(mem[0].constants, 8u);
  EXPECT_EQ(mem[1].constants, 16u);
}

TEST(EngineMemoryTest, CategoriesPerTile) {
  Graph graph(SmallTarget(2));
  Tensor v = graph.addVariable(FLOAT, {8}, "v");
  Tensor c = graph.addConstant<float>(FLOAT, {4}, 1.0f, "c");
  graph.setTileMapping(v.slice(0, 4), 0);
  graph.setTileMapping(v.slice(4, 8), 1);
  graph.setTileMapping(c, 1);
  ComputeSet cs = graph.addComputeSet("add");
  // Reads v[0:4] from tile 0 on tile 1: a 16-byte exchange buffer.
  graph.setTileMapping(graph.addVertex(cs, "test::AddVectors",
                                       {{"a", v.slice(0, 4)}, {"b", c},
                                        {"out", v.slice(4, 8)}}), 1);
  auto e = Engine::create(graph, Execute(cs));
  ASSERT_TRUE(e.ok()) << e.status();
  const auto& mem = e->getTileMemory();
  EXPECT_EQ(mem[0].variables, 16u);
  EXPECT_EQ(mem[1].variables, 16u);
  EXPECT_EQ(mem[1].constants, 16u);
  EXPECT_EQ(mem[0].constants, 0u);
  const IpuArchitecture& a = graph.getTarget().arch();
  EXPECT_EQ(mem[1].vertexState, a.vertexStateBytes + 3 * a.fieldDescriptorBytes);
  EXPECT_EQ(mem[0].vertexState, 0u);
  EXPECT_EQ(mem[1].exchange, 16u);
  EXPECT_EQ(mem[1].code, a.codeBytesPerVertexType + a.controlCodeBytesPerStep);
  EXPECT_EQ(mem[0].code, a.controlCodeBytesPerStep);
  EXPECT_EQ(e->getLoadCost().bytes,
            mem[0].code + mem[1].code + mem[1].vertexState + mem[1].constants);
}

namespace checked_fields {

// A codelet with a bug: it copies `in` to `out` indexing `in` by the
// length of `out`, which is longer.
class CopyByOutputLength : public Vertex {
 public:
  Input<Vector<float>> in{this, "in"};
  Output<Vector<float>> out{this, "out"};
  bool compute() override {
    for (size_t i = 0; i < out.size(); ++i) out[i] = in[i];
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target&) const override {
    return out.size();
  }
};
POPLAR_SIM_REGISTER_VERTEX_NAMED("engine_test::CopyByOutputLength", CopyByOutputLength);

// Runs the buggy codelet with `in` of 3 and `out` of 5 elements.
absl::Status RunBuggyCopy(const OptionFlags& options, std::vector<float>* out) {
  Device device = SmallDevice(2);
  Graph graph(device.getTarget());
  Tensor in = graph.addConstant<float>(FLOAT, {3}, {1, 2, 3}, "in");
  Tensor o = graph.addVariable(FLOAT, {5}, "out");
  graph.setTileMapping(in, 0);
  graph.setTileMapping(o, 0);
  ComputeSet cs = graph.addComputeSet("copy_cs");
  VertexRef v = graph.addVertex(cs, "engine_test::CopyByOutputLength",
                                {{"in", in}, {"out", o}});
  graph.setTileMapping(v, 0);
  graph.createHostRead("out", o);
  graph.createHostWrite("out", o);
  auto engine = Engine::create(graph, Execute(cs), options);
  if (!engine.ok()) return engine.status();
  POPLAR_SIM_RETURN_IF_ERROR(engine->load(device));
  std::vector<float> before(5, -1.0f);
  POPLAR_SIM_RETURN_IF_ERROR(
      engine->writeTensor("out", before.data(), before.data() + before.size()));
  absl::Status s = engine->run(0);
  out->assign(5, 0.0f);
  POPLAR_SIM_RETURN_IF_ERROR(engine->readTensor("out", out->data(), out->data() + 5));
  return s;
}

TEST(CheckedVertexFieldsTest, IndexPastAFieldIsAnErrorNamingVertexAndField) {
  std::vector<float> out;
  absl::Status s = RunBuggyCopy({{"debug.checkVertexFields", "true"}}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange) << s;
  EXPECT_THAT(Msg(s), HasSubstr("vertex 0 (type 'engine_test::CopyByOutputLength', "
                                "compute set 'copy_cs'): field 'in' was indexed at 3 "
                                "but holds 3 element(s)"));
  // Nothing was written back from a vertex that read past its field.
  EXPECT_THAT(out, ElementsAre(-1, -1, -1, -1, -1));
}

TEST(CheckedVertexFieldsTest, OnInTestsOffByDefault) {
  // The test macro turns it on for every test through the environment.
  EXPECT_TRUE(resolveEngineOptions({})->checkVertexFields);
  // Without the environment it is off (an unchecked index past a field
  // reads past the engine's exact buffer, as on hardware).
  const char* env = std::getenv("POPLAR_ENGINE_OPTIONS");
  const std::string saved = env ? env : "";
  unsetenv("POPLAR_ENGINE_OPTIONS");
  EXPECT_FALSE(resolveEngineOptions({})->checkVertexFields);
  EXPECT_TRUE(resolveEngineOptions({{"debug.checkVertexFields", "true"}})->checkVertexFields);
  if (env) setenv("POPLAR_ENGINE_OPTIONS", saved.c_str(), 1);
}

}  // namespace checked_fields

}  // namespace
}  // namespace poplar_sim
