// Stream records lent to the variables they fill (engine_borrowed_records.cc):
// a borrowing program gives the values of the copy, run after run, and never
// writes the host's buffer; the programs where a borrowed record would give
// other values (a read before the stream, another writer, an output stream
// into the same buffer, a host handle) keep the copy's values.
#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/device.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace {

using namespace program;  // NOLINT: the Poplar style
using ::testing::ElementsAre;
using testing::SmallDevice;

constexpr size_t kN = 4;

// x streams in from "in"; y = x + x; y streams out to "out". `order` puts
// the steps in a Sequence: 's' stream in, 'a' add, 'o' stream out, 'i'
// scale x by 10 in place (a second writer of x), 'p' stream x out to "back",
// 'c' stream "cb" into z (a variable nothing reads).
struct Fixture {
  explicit Fixture(const std::string& order, unsigned replicas = 1)
      : device(SmallDevice(2, replicas)),
        graph(device.getTarget(), replication_factor(replicas)) {
    x = graph.addVariable(FLOAT, {kN}, "x");
    y = graph.addVariable(FLOAT, {kN}, "y");
    z = graph.addVariable(FLOAT, {kN}, "z");
    graph.setTileMapping(z, 0);
    graph.setTileMapping(x, 0);
    graph.setTileMapping(y, 1);
    ComputeSet add = graph.addComputeSet("add");
    VertexRef v = graph.addVertex(add, "test::AddVectors", {{"a", x}, {"b", x}, {"out", y}});
    graph.setTileMapping(v, 1);
    ComputeSet scale = graph.addComputeSet("scale");
    VertexRef w = graph.addVertex(scale, "test::ScaleVector", {{"v", x}});
    graph.setInitialValue(w["k"], 10.0f);
    graph.setTileMapping(w, 0);
    DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, kN);
    DataStream out = graph.addDeviceToHostFIFO("out", FLOAT, kN);
    DataStream back = graph.addDeviceToHostFIFO("back", FLOAT, kN);
    DataStream cb = graph.addHostToDeviceFIFO("cb", FLOAT, kN);
    for (char c : order) {
      switch (c) {
        case 's': seq.add(Copy(in, x)); break;
        case 'a': seq.add(Execute(add)); break;
        case 'o': seq.add(Copy(y, out)); break;
        case 'i': seq.add(Execute(scale)); break;
        case 'p': seq.add(Copy(x, back)); break;
        case 'c': seq.add(Copy(cb, z)); break;
      }
    }
  }
  // Loads the engine with `in` (`inRecords` records from `in`, which need
  // not be aligned), `out` and `back` connected, and "cb" to `callback` if
  // one is given.
  void Load(void* in, size_t inRecords, float* out, size_t outRecords, float* back,
            std::function<void(void*)> callback = nullptr) {
    auto e = Engine::create(graph, top.has_value() ? *top : Program(seq));
    ASSERT_TRUE(e.ok()) << e.status();
    engine.emplace(std::move(*e));
    char* inBytes = static_cast<char*>(in);
    absl::Status s = engine->connectStream("in", inBytes, inBytes + inRecords * kN * sizeof(float));
    ASSERT_TRUE(s.ok()) << s;
    s = engine->connectStream("out", out, out + outRecords * kN);
    ASSERT_TRUE(s.ok()) << s;
    s = engine->connectStream("back", back, back + kN);
    ASSERT_TRUE(s.ok()) << s;
    if (callback) {
      s = engine->connectStreamToCallback("cb", std::move(callback));
      ASSERT_TRUE(s.ok()) << s;
    }
    s = engine->load(device);
    ASSERT_TRUE(s.ok()) << s;
  }
  void Run() {
    absl::Status s = engine->run(0);
    ASSERT_TRUE(s.ok()) << s;
  }
  Device device;
  Graph graph;
  Tensor x, y, z;
  Sequence seq;
  std::optional<Program> top;  // the program run, if not `seq`
  std::optional<Engine> engine;
};

// The usual inference program: x is only read after its stream.
TEST(BorrowedRecordsTest, ValuesOfTheCopyRunAfterRunAndTheBufferUntouched) {
  Fixture p("sao");
  std::vector<float> in = {1, 2, 3, 4}, out(kN, -1), back(kN);
  p.Load(in.data(), 1, out.data(), 1, back.data());
  p.Run();
  EXPECT_THAT(out, ElementsAre(2, 4, 6, 8));
  in = {10, 20, 30, 40};  // the host's next batch, between runs
  p.Run();
  EXPECT_THAT(out, ElementsAre(20, 40, 60, 80));
  EXPECT_THAT(in, ElementsAre(10, 20, 30, 40));
}

// A loop reading one record per iteration (an infeed): each iteration's
// values, the buffer untouched.
TEST(BorrowedRecordsTest, EachIterationReadsItsRecord) {
  Fixture p("sao");
  p.top.emplace(Repeat(3, p.seq));
  std::vector<float> in = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, out(3 * kN, -1), back(kN);
  const std::vector<float> before = in;
  p.Load(in.data(), 3, out.data(), 3, back.data());
  p.Run();
  EXPECT_THAT(out, ElementsAre(2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6));
  EXPECT_EQ(in, before);
}

// x read before its stream: a run reads what the previous run streamed in
// (the first run, x's initial zeros). A record lent in the previous run
// would be gone.
TEST(BorrowedRecordsTest, AReadBeforeTheStreamSeesThePreviousRunsRecord) {
  Fixture p("aso");
  std::vector<float> in = {1, 2, 3, 4}, out(kN, -1), back(kN);
  p.Load(in.data(), 1, out.data(), 1, back.data());
  p.Run();
  EXPECT_THAT(out, ElementsAre(0, 0, 0, 0));
  in = {5, 6, 7, 8};
  p.Run();
  EXPECT_THAT(out, ElementsAre(2, 4, 6, 8));
}

// x scaled in place after its stream: the host's buffer keeps its values.
TEST(BorrowedRecordsTest, AnotherWriterNeverWritesTheHostsBuffer) {
  Fixture p("siao");
  std::vector<float> in = {1, 2, 3, 4}, out(kN, -1), back(kN);
  p.Load(in.data(), 1, out.data(), 1, back.data());
  p.Run();
  EXPECT_THAT(out, ElementsAre(20, 40, 60, 80));
  EXPECT_THAT(in, ElementsAre(1, 2, 3, 4));
  p.Run();
  EXPECT_THAT(out, ElementsAre(20, 40, 60, 80));
}

// y streamed out into the very buffer x streamed in from, then x read
// again: x keeps the values it was filled with.
TEST(BorrowedRecordsTest, AnOutputIntoTheSameBufferDoesNotChangeTheVariable) {
  Fixture p("saoap");
  std::vector<float> io = {1, 2, 3, 4}, back(kN, -1);
  p.Load(io.data(), 1, io.data(), 1, back.data());
  p.Run();
  EXPECT_THAT(io, ElementsAre(2, 4, 6, 8));    // y, streamed out over the input
  EXPECT_THAT(back, ElementsAre(1, 2, 3, 4));  // x as it was streamed in
}

// A host read handle on x: the host reads x's device copy after the run.
TEST(BorrowedRecordsTest, AHostReadSeesTheStreamedValues) {
  Fixture p("sao");
  p.graph.createHostRead("x", p.x);
  std::vector<float> in = {1, 2, 3, 4}, out(kN, -1), back(kN), read(kN, -1);
  p.Load(in.data(), 1, out.data(), 1, back.data());
  p.Run();
  absl::Status s = p.engine->readTensor("x", read.data(), read.data() + kN);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(read, ElementsAre(1, 2, 3, 4));
}

// A callback runs host code during the run; here it changes the buffer x
// was streamed from, after the stream and before x is read: x keeps the
// values it was filled with.
TEST(BorrowedRecordsTest, ACallbackChangingTheBufferDoesNotChangeTheVariable) {
  Fixture p("scao");
  std::vector<float> in = {1, 2, 3, 4}, out(kN, -1), back(kN);
  p.Load(in.data(), 1, out.data(), 1, back.data(), [&](void* record) {
    std::fill(in.begin(), in.end(), 100.0f);
    std::fill(static_cast<float*>(record), static_cast<float*>(record) + kN, 0.0f);
  });
  p.Run();
  EXPECT_THAT(out, ElementsAre(2, 4, 6, 8));
}

// A record at an address no float may have (the host's bytes one past an
// aligned buffer): the stream still gives the record's values (the engine
// copies it rather than lend it to typed reads).
TEST(BorrowedRecordsTest, AMisalignedRecordIsCopied) {
  Fixture p("sao");
  alignas(16) char bytes[kN * sizeof(float) + 1];
  const std::vector<float> values = {1, 2, 3, 4};
  std::memcpy(bytes + 1, values.data(), kN * sizeof(float));
  std::vector<float> out(kN, -1), back(kN);
  p.Load(bytes + 1, 1, out.data(), 1, back.data());
  p.Run();
  EXPECT_THAT(out, ElementsAre(2, 4, 6, 8));
}

// Two replicas, each fed from its own buffer, side by side on two threads.
TEST(BorrowedRecordsTest, ReplicasReadTheirOwnRecords) {
  Fixture p("sao", /*replicas=*/2);
  auto e = Engine::create(p.graph, p.seq);
  ASSERT_TRUE(e.ok()) << e.status();
  SpawnedHostThreads threads(2);
  e->setHostThreads(&threads);
  std::vector<float> in0 = {1, 2, 3, 4}, in1 = {5, 6, 7, 8}, out0(kN), out1(kN), back(kN);
  for (auto [replica, in, out] : {std::tuple{0u, &in0, &out0}, std::tuple{1u, &in1, &out1}}) {
    absl::Status s = e->connectStream("in", replica, in->data(), in->data() + kN);
    ASSERT_TRUE(s.ok()) << s;
    s = e->connectStream("out", replica, out->data(), out->data() + kN);
    ASSERT_TRUE(s.ok()) << s;
    s = e->connectStream("back", replica, back.data(), back.data() + kN);
    ASSERT_TRUE(s.ok()) << s;
  }
  absl::Status s = e->load(p.device);
  ASSERT_TRUE(s.ok()) << s;
  s = e->run(0);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(out0, ElementsAre(2, 4, 6, 8));
  EXPECT_THAT(out1, ElementsAre(10, 12, 14, 16));
  EXPECT_THAT(in1, ElementsAre(5, 6, 7, 8));
}

}  // namespace
}  // namespace poplar_sim
