// With host threads an engine runs replicas side by side, and the children
// of a sequence that work on different IPUs as lanes side by side. Neither
// may change anything but the host time: the values, the printed output,
// the simulated cycles, the profile and the errors are those of a run on
// one thread.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/gcl/collectives.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/profile.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace {

using namespace program;  // NOLINT: the Poplar style
using ::testing::HasSubstr;

// The threads a compute set's bulk executor ran on.
struct ThreadLog {
  std::mutex mu;
  std::set<std::thread::id> ids;
  void note() {
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  }
};

// A compute set on `graph` scaling `t` (one vertex per tile) by k, whose
// bulk executor notes its thread in `log`, calls `before` (if any) and
// fails at its `failAt`-th execution (counting from 1; 0: never) with
// `failure`.
ComputeSet Scale(Graph& graph, const Tensor& t, float k, const std::string& name,
                 std::shared_ptr<ThreadLog> log, unsigned failAt = 0,
                 const std::string& failure = "", std::function<void()> before = nullptr) {
  ComputeSet cs = graph.addComputeSet(name);
  const unsigned tiles = graph.getTarget().getNumTiles();
  const size_t per = t.numElements() / tiles;
  for (unsigned tile = 0; tile < tiles; ++tile) {
    Tensor part = t.slice(tile * per, (tile + 1) * per);
    graph.setTileMapping(part, tile);
    VertexRef v = graph.addVertex(cs, "test::ScaleVector", {{"v", part}});
    graph.setInitialValue(v["k"], k);
    graph.setTileMapping(v, tile);
  }
  auto executions = std::make_shared<std::atomic<unsigned>>(0);
  graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) -> absl::Status {
    log->note();
    if (before) before();
    if (++*executions == failAt) return absl::InvalidArgumentError(failure);
    WriteView<float> v(ctx, t, /*readFirst=*/true);
    for (size_t i = 0; i < v.size(); ++i) v[i] *= k;
    return absl::OkStatus();
  });
  return cs;
}

struct Outcome {
  absl::Status status;
  std::vector<std::vector<float>> outputs;  // per replica
  std::string printed;
  uint64_t cycles = 0;
  std::string profile;  // as JSON
};

// Two compute sets that must run side by side to get on: the k-th run of
// the first (wait()) waits up to 10 s for the k-th run of the second
// (arrive()), which comes after it in program order. `met` stays true if
// every wait ended in time.
struct Meeting {
  std::function<void()> wait() {
    return [this] {
      const unsigned k = ++waits;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (arrivals.load() < k) {
        if (std::chrono::steady_clock::now() > deadline) {
          met = false;
          return;
        }
        std::this_thread::yield();
      }
    };
  }
  std::function<void()> arrive() {
    return [this] { ++arrivals; };
  }
  std::atomic<unsigned> waits{0};
  std::atomic<unsigned> arrivals{0};
  std::atomic<bool> met{true};
};

// Compiles `prog` to run side by side however little work it has, lets
// `connect` attach the streams (outputs into the Outcome), runs it once on
// `threads` and tells what came of it.
Outcome RunSideBySide(Graph& graph, const Sequence& prog, Device& device,
                      HostThreads* threads,
                      const std::function<absl::Status(Engine&, Outcome&)>& connect) {
  Outcome o;
  absl::StatusOr<Engine> engine =
      Engine::create(graph, prog, OptionFlags{{"debug.minLaneWork", "0"}});
  if (!engine.ok()) {
    o.status = engine.status();
    return o;
  }
  absl::Status s = connect(*engine, o);
  engine->setHostThreads(threads);
  if (s.ok()) s = engine->load(device);
  if (s.ok()) s = engine->run();
  o.status = s;
  o.cycles = engine->getLastRunStats().cycles;
  o.profile = profileToJson(engine->getProfile());
  return o;
}

// x (8 floats per replica, its own values) is scaled in a loop that prints
// it, averaged over the replicas, scaled again and streamed out.
Outcome RunReplicated(unsigned replicas, HostThreads* threads, bool callbackInput = false) {
  Device device = testing::SmallDevice(4, replicas);
  Graph graph(device.getTarget(), replication_factor(replicas));
  auto log = std::make_shared<ThreadLog>();
  Tensor x = graph.addVariable(FLOAT, {8}, "x");
  ComputeSet scale = Scale(graph, x, 1.5f, "scale", log);
  DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, 8);
  DataStream out = graph.addDeviceToHostFIFO("out", FLOAT, 8);
  Sequence prog;
  prog.add(Copy(in, x));
  prog.add(Repeat(3, Sequence({Execute(scale), PrintTensor("x", x)})));
  Tensor mean = gcl::allReduceCrossReplica(graph, x, gcl::CollectiveOperator::MEAN, prog, {},
                                           "mean");
  prog.add(Copy(mean, x));
  prog.add(Execute(scale));
  prog.add(Copy(x, out));
  Outcome o;
  absl::StatusOr<Engine> engine = Engine::create(graph, prog);
  if (!engine.ok()) {
    o.status = engine.status();
    return o;
  }
  std::vector<std::vector<float>> inputs(replicas);
  o.outputs.assign(replicas, std::vector<float>(8));
  absl::Status s;
  for (unsigned r = 0; r < replicas; ++r) {
    for (int i = 0; i < 8; ++i) inputs[r].push_back(static_cast<float>(r * 10 + i) / 3);
    if (!callbackInput) {
      s.Update(engine->connectStream("in", r, inputs[r].data(), inputs[r].data() + 8));
    }
    s.Update(engine->connectStream("out", r, o.outputs[r].data(), o.outputs[r].data() + 8));
  }
  // A callback gives each record it is asked for the next values: the
  // replicas see different data if they call it in a different order.
  float next = 0;
  if (callbackInput) {
    s.Update(engine->connectStreamToCallback("in", [&next](void* p) {
      float* f = static_cast<float*>(p);
      for (int i = 0; i < 8; ++i) f[i] = next++;
    }));
  }
  std::ostringstream printed;
  engine->setPrintStream(&printed);
  engine->setHostThreads(threads);
  if (s.ok()) s = engine->load(device);
  if (s.ok()) s = engine->run();
  o.status = s;
  o.printed = printed.str();
  o.cycles = engine->getLastRunStats().cycles;
  o.profile = profileToJson(engine->getProfile());
  return o;
}

TEST(HostParallelTest, ReplicasSideBySideGiveWhatOneThreadGives) {
  const Outcome one = RunReplicated(4, nullptr);
  ASSERT_TRUE(one.status.ok()) << one.status;
  SpawnedHostThreads two(2);
  const Outcome side = RunReplicated(4, &two);
  ASSERT_TRUE(side.status.ok()) << side.status;
  EXPECT_EQ(side.outputs, one.outputs);
  EXPECT_EQ(side.printed, one.printed);
  EXPECT_EQ(side.cycles, one.cycles);
  EXPECT_EQ(side.profile, one.profile);
  // The mean of the replicas, scaled: 1.5^4 * mean over r of (10 r + i) / 3.
  for (int i = 0; i < 8; ++i) {
    const float mean = (15.f + i) / 3;
    EXPECT_FLOAT_EQ(one.outputs[3][i], mean * 1.5f * 1.5f * 1.5f * 1.5f);
  }
  // Replica 0's three prints (x[0] = 0), then replica 1's (x[0] = 5, 7.5,
  // 11.25), then replica 2's (10, ...): replica order.
  EXPECT_EQ(one.printed.find("x: [0.0000000"), 0u);
  EXPECT_LT(one.printed.find("x: [5.0000000"), one.printed.find("x: [11.2500000"));
  EXPECT_LT(one.printed.find("x: [11.2500000"), one.printed.find("x: [10.0000000"));
}

TEST(HostParallelTest, AStreamCallbackKeepsReplicasInOrder) {
  const Outcome one = RunReplicated(2, nullptr, /*callbackInput=*/true);
  ASSERT_TRUE(one.status.ok()) << one.status;
  SpawnedHostThreads two(2);
  const Outcome side = RunReplicated(2, &two, /*callbackInput=*/true);
  ASSERT_TRUE(side.status.ok()) << side.status;
  EXPECT_EQ(side.outputs, one.outputs);
  EXPECT_EQ(side.printed, one.printed);
}

// On IPUs 0 and 1, a and b are scaled alternately, four times over, then
// a is copied next to b and both stream out. Stage "b2" fails at its
// `failB2At`-th execution and "a2" at its `failA2At`-th.
//
// With `meet`, the k-th a1 waits (up to 10 s) for the k-th b1, which comes
// after it in program order: only lanes running side by side get past it.
struct TwoIpuProgram {
  explicit TwoIpuProgram(unsigned failA2At = 0, unsigned failB2At = 0, bool meet = false)
      : device(testing::SmallDevice(4, 2)), graph(device.getTarget()) {
    Graph ipu0 = graph.createVirtualGraphForIPU(0);
    Graph ipu1 = graph.createVirtualGraphForIPU(1);
    Tensor a = ipu0.addVariable(FLOAT, {8}, "a");
    Tensor b = ipu1.addVariable(FLOAT, {8}, "b");
    Tensor a_on_1 = ipu1.addVariable(FLOAT, {8}, "a_on_1");
    ipu1.setTileMapping(a_on_1, 0);
    ComputeSet a1 = Scale(ipu0, a, 1.5f, "a1", ipu0Log, 0, "", meet ? b1Meeting.wait() : nullptr);
    ComputeSet b1 = Scale(ipu1, b, 0.5f, "b1", ipu1Log, 0, "", meet ? b1Meeting.arrive() : nullptr);
    ComputeSet a2 = Scale(ipu0, a, 1.25f, "a2", ipu0Log, failA2At, "a2 failed");
    ComputeSet b2 = Scale(ipu1, b, 3.f, "b2", ipu1Log, failB2At, "b2 failed");
    DataStream inA = graph.addHostToDeviceFIFO("inA", FLOAT, 8);
    DataStream inB = graph.addHostToDeviceFIFO("inB", FLOAT, 8);
    DataStream outA = graph.addDeviceToHostFIFO("outA", FLOAT, 8);
    DataStream outB = graph.addDeviceToHostFIFO("outB", FLOAT, 8);
    prog.add(Copy(inA, a));
    prog.add(Copy(inB, b));
    prog.add(Repeat(4, Sequence({Execute(a1), Execute(b1), Execute(b2), Execute(a2)})));
    prog.add(Copy(a, a_on_1));
    prog.add(Copy(a_on_1, outA));
    prog.add(Copy(b, outB));
  }
  Outcome Run(HostThreads* threads) {
    std::vector<float> a(8), b(8);
    for (int i = 0; i < 8; ++i) {
      a[i] = static_cast<float>(i);
      b[i] = static_cast<float>(100 - i);
    }
    return RunSideBySide(graph, prog, device, threads, [&](Engine& engine, Outcome& o) {
      o.outputs.assign(2, std::vector<float>(8));
      absl::Status s = engine.connectStream("inA", a.data(), a.data() + 8);
      s.Update(engine.connectStream("inB", b.data(), b.data() + 8));
      s.Update(engine.connectStream("outA", o.outputs[0].data(), o.outputs[0].data() + 8));
      s.Update(engine.connectStream("outB", o.outputs[1].data(), o.outputs[1].data() + 8));
      return s;
    });
  }
  Meeting b1Meeting;  // each a1 meets the b1 after it
  std::shared_ptr<ThreadLog> ipu0Log = std::make_shared<ThreadLog>();
  std::shared_ptr<ThreadLog> ipu1Log = std::make_shared<ThreadLog>();
  Device device;
  Graph graph;
  Sequence prog;
};

TEST(HostParallelTest, LanesOnTwoIpusGiveWhatOneThreadGives) {
  TwoIpuProgram serial;
  const Outcome one = serial.Run(nullptr);
  ASSERT_TRUE(one.status.ok()) << one.status;
  EXPECT_EQ(serial.ipu0Log->ids, serial.ipu1Log->ids);  // all on this thread

  TwoIpuProgram lanes(0, 0, /*meet=*/true);
  SpawnedHostThreads two(2);
  const Outcome side = lanes.Run(&two);
  ASSERT_TRUE(side.status.ok()) << side.status;
  EXPECT_EQ(side.outputs, one.outputs);
  EXPECT_EQ(side.cycles, one.cycles);
  EXPECT_EQ(side.profile, one.profile);
  for (int i = 0; i < 8; ++i) {
    EXPECT_FLOAT_EQ(one.outputs[0][i], i * 1.5f * 1.25f * 1.5f * 1.25f * 1.5f * 1.25f * 1.5f *
                                           1.25f);
    EXPECT_FLOAT_EQ(one.outputs[1][i], (100 - i) * 1.5f * 1.5f * 1.5f * 1.5f);
  }
  // Each a1 met the b1 that follows it: the lanes ran side by side.
  EXPECT_TRUE(lanes.b1Meeting.met.load());
  EXPECT_EQ(lanes.b1Meeting.arrivals.load(), 4u);
}

TEST(HostParallelTest, ALaneErrorIsTheOneProgramOrderMeetsFirst) {
  // b2 fails in the second iteration and a2 in the third: one thread stops
  // at b2; so must lanes, although IPU 0's lane goes on alone for a while.
  for (HostThreads* threads : std::vector<HostThreads*>{nullptr, new SpawnedHostThreads(2)}) {
    std::unique_ptr<HostThreads> owned(threads);
    TwoIpuProgram p(/*failA2At=*/3, /*failB2At=*/2);
    const Outcome o = p.Run(threads);
    EXPECT_EQ(o.status.code(), absl::StatusCode::kInvalidArgument) << o.status;
    EXPECT_THAT(o.status.message(), HasSubstr("b2 failed"));
  }
  // When both fail in one iteration, b2's error is the one: it comes first
  // in program order, though a2's lane may meet its own first.
  SpawnedHostThreads two(2);
  TwoIpuProgram p(/*failA2At=*/2, /*failB2At=*/2);
  const Outcome o = p.Run(&two);
  EXPECT_THAT(o.status.message(), HasSubstr("b2 failed"));
}

// One IPU: x is doubled ("p"), then y = x + x ("a") and z = x + x ("b")
// both read it, then w = y + z ("c"); four times over, w streamed out. a
// and b wait for p only, so they run side by side although each reads what
// the same compute set wrote (a fork, not two separate chains). With
// `meet`, the k-th a waits (up to 10 s) for the k-th b, which follows it
// in program order. b fails at its `failBAt`-th execution.
struct ForkProgram {
  explicit ForkProgram(bool meet, unsigned failBAt = 0)
      : device(testing::SmallDevice(4, 1)), graph(device.getTarget()) {
    Tensor x = graph.addVariable(FLOAT, {8}, "x");
    Tensor y = graph.addVariable(FLOAT, {8}, "y");
    Tensor z = graph.addVariable(FLOAT, {8}, "z");
    Tensor w = graph.addVariable(FLOAT, {8}, "w");
    ComputeSet p = Scale(graph, x, 2.f, "p", log);
    ComputeSet a = Add(x, x, y, "a", meet ? bMeeting.wait() : nullptr);
    ComputeSet b = Add(x, x, z, "b", meet ? bMeeting.arrive() : nullptr, failBAt);
    ComputeSet c = Add(y, z, w, "c");
    DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, 8);
    DataStream out = graph.addDeviceToHostFIFO("out", FLOAT, 8);
    prog.add(Copy(in, x));
    prog.add(Repeat(4, Sequence({Execute(p), Execute(a), Execute(b), Execute(c)})));
    prog.add(Copy(w, out));
  }
  // out = first + second, one vertex per tile; the bulk executor calls
  // `before` and fails at its `failAt`-th execution.
  ComputeSet Add(const Tensor& first, const Tensor& second, const Tensor& out,
                 const std::string& name, std::function<void()> before = nullptr,
                 unsigned failAt = 0) {
    ComputeSet cs = graph.addComputeSet(name);
    for (unsigned tile = 0; tile < 4; ++tile) {
      graph.setTileMapping(out.slice(tile * 2, tile * 2 + 2), tile);
      VertexRef v = graph.addVertex(cs, "test::AddVectors",
                                    {{"a", first.slice(tile * 2, tile * 2 + 2)},
                                     {"b", second.slice(tile * 2, tile * 2 + 2)},
                                     {"out", out.slice(tile * 2, tile * 2 + 2)}});
      graph.setTileMapping(v, tile);
    }
    auto executions = std::make_shared<std::atomic<unsigned>>(0);
    graph.setBulkExecutor(cs, [=](ExecutionContext& ctx) -> absl::Status {
      if (before) before();
      if (++*executions == failAt) return absl::InvalidArgumentError(name + " failed");
      ReadView<float> f(ctx, first), g(ctx, second);
      WriteView<float> o(ctx, out);
      for (size_t i = 0; i < o.size(); ++i) o[i] = f[i] + g[i];
      return absl::OkStatus();
    });
    return cs;
  }
  Outcome Run(HostThreads* threads) {
    std::vector<float> x(8);
    for (int i = 0; i < 8; ++i) x[i] = static_cast<float>(i) / 4;
    return RunSideBySide(graph, prog, device, threads, [&](Engine& engine, Outcome& o) {
      o.outputs.assign(1, std::vector<float>(8));
      absl::Status s = engine.connectStream("in", x.data(), x.data() + 8);
      s.Update(engine.connectStream("out", o.outputs[0].data(), o.outputs[0].data() + 8));
      return s;
    });
  }
  Meeting bMeeting;  // each a meets the b after it
  std::shared_ptr<ThreadLog> log = std::make_shared<ThreadLog>();
  Device device;
  Graph graph;
  Sequence prog;
};

TEST(HostParallelTest, TwoReadersOfOneResultRunSideBySide) {
  ForkProgram serial(/*meet=*/false);
  const Outcome one = serial.Run(nullptr);
  ASSERT_TRUE(one.status.ok()) << one.status;
  // x doubles each time round; w = 4 x after it.
  for (int i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(one.outputs[0][i], 4 * 16 * (i / 4.f)) << i;

  ForkProgram fork(/*meet=*/true);
  SpawnedHostThreads two(2);
  const Outcome side = fork.Run(&two);
  ASSERT_TRUE(side.status.ok()) << side.status;
  EXPECT_EQ(side.outputs, one.outputs);
  EXPECT_EQ(side.cycles, one.cycles);
  EXPECT_EQ(side.profile, one.profile);
  // Each a met the b after it: they ran side by side.
  EXPECT_TRUE(fork.bMeeting.met.load()) << "a waited 10 s for b: the two readers of x ran one after the other";
  EXPECT_EQ(fork.bMeeting.arrivals.load(), 4u);
}

TEST(HostParallelTest, AChildAfterAFailedOneDoesNotStart) {
  // b fails in the third round; c reads what b writes, so it never runs
  // that round, and the run's error is b's, on one thread or two.
  for (unsigned threads : {1u, 2u}) {
    ForkProgram p(/*meet=*/false, /*failBAt=*/3);
    SpawnedHostThreads host(threads);
    const Outcome o = p.Run(&host);
    EXPECT_EQ(o.status.code(), absl::StatusCode::kInvalidArgument) << o.status;
    EXPECT_THAT(o.status.message(), HasSubstr("b failed")) << threads << " threads";
  }
}

// A graph of many small compute sets (more than one batch of the
// engine's analysis), with vertices that read other tiles' elements and
// vertices of other sizes, compiled on `threads`. Compute sets listed in
// `unmapped` get a vertex without a tile (an error at compilation).
absl::StatusOr<std::string> CompiledProfile(HostThreads* threads,
                                            const std::set<unsigned>& unmapped = {}) {
  Graph graph(testing::SmallTarget(8, 2));
  const unsigned tiles = graph.getTarget().getNumTiles();
  Sequence prog;
  for (unsigned i = 0; i < 2500; ++i) {
    const size_t n = 16 + i % 7;
    Tensor x = graph.addVariable(FLOAT, {n}, "x" + std::to_string(i));
    for (size_t e = 0; e < n; ++e) graph.setTileMapping(x.slice(e, e + 1), (i + e) % tiles);
    ComputeSet cs = graph.addComputeSet("cs" + std::to_string(i));
    for (size_t first = 0; first < n; first += 4 + i % 3) {
      VertexRef v = graph.addVertex(cs, "test::ScaleVector",
                                    {{"v", x.slice(first, std::min(n, first + 4 + i % 3))}});
      graph.setInitialValue(v["k"], 2.0);
      if (unmapped.count(i) == 0) graph.setTileMapping(v, (i * 5 + first) % tiles);
    }
    prog.add(Execute(cs));
  }
  absl::StatusOr<Engine> engine = Engine::create(graph, prog, {}, threads);
  if (!engine.ok()) return engine.status();
  return profileToJson(engine->getProfile());
}

TEST(HostParallelTest, CompilingOnThreadsGivesWhatOneThreadGives) {
  const absl::StatusOr<std::string> one = CompiledProfile(nullptr);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(*one, HasSubstr("\"cs2499\""));
  for (unsigned n : {2u, 3u}) {
    SpawnedHostThreads threads(n);
    const absl::StatusOr<std::string> side = CompiledProfile(&threads);
    ASSERT_TRUE(side.ok()) << side.status();
    EXPECT_EQ(*side, *one) << n << " threads";
  }
  // The first error in compute-set order, wherever the threads meet it:
  // compute sets 1030 and 1700 (the first and the second thread's shares
  // of the second batch) both fail.
  const absl::StatusOr<std::string> failed = CompiledProfile(nullptr, {1030, 1700});
  ASSERT_FALSE(failed.ok()) << "compiled although two compute sets have unmapped vertices";
  EXPECT_THAT(failed.status().message(), HasSubstr("compute set 'cs1030'"));
  SpawnedHostThreads three(3);
  const absl::StatusOr<std::string> failedSide = CompiledProfile(&three, {1030, 1700});
  EXPECT_EQ(failedSide.status(), failed.status());
}

}  // namespace
}  // namespace poplar_sim
