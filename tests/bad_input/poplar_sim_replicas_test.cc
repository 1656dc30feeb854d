// Bad input to replicated poplar_sim graphs: replication factors and
// reduction groups that do not divide, replicas that do not exist, a
// replica that skips a reduction another runs. Each case asserts the code
// and the words that name the culprit, then that the engine still works.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "poplar_sim/host_threads.h"
#include "tests/bad_input/poplar_sim_bad_input.h"

namespace poplar_sim {
namespace {

using namespace program;  // NOLINT: the Poplar style
using namespace bad_input;  // NOLINT: the shared checks and fixture


// A replicated graph of 2 replicas of one IPU, with x streamed in and
// reduced across the replicas into y.
struct TwoReplicas {
  TwoReplicas() : device(testing::SmallDevice(4, 2)),
                  graph(device.getTarget(), replication_factor(2)) {
    x = graph.addVariable(FLOAT, {2}, "x");
    graph.setTileMapping(x, 0);
    in = graph.addHostToDeviceFIFO("in", FLOAT, 2);
  }
  Device device;
  Graph graph;
  Tensor x;
  DataStream in;
};

TEST_F(PoplarSimBadInputTest, ReplicationFactorOfZeroOrOneThatDoesNotDivide) {
  Device device = testing::SmallDevice(4, 4);
  for (unsigned r : {0u, 3u, 8u}) {
    Graph g(device.getTarget(), replication_factor(r));
    ExpectError(g.status(), absl::StatusCode::kInvalidArgument,
                {absl::StrCat("a replication factor of ", r, " does not divide the 4 IPU(s)")});
  }
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, ReduceOverGroupsThatDoNotDivideTheReplicas) {
  TwoReplicas t;
  Sequence prog;
  prog.add(CrossReplicaReduce(t.x, t.x, CollectiveOperator::ADD, 3, "odd_groups"));
  ExpectError(Engine::create(t.graph, prog).status(), absl::StatusCode::kInvalidArgument,
              {"CrossReplicaReduce 'odd_groups'", "a replica group size of 3 does not divide "
               "the graph's replication factor 2"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, ConnectingAReplicaThatDoesNotExist) {
  TwoReplicas t;
  Sequence prog({Copy(t.in, t.x)});
  auto engine = Engine::create(t.graph, prog);
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<float> buf(2);
  ExpectError(engine->connectStream("in", 2, buf.data(), buf.data() + 2),
              absl::StatusCode::kInvalidArgument,
              {"connectStream 'in'", "replica 2 does not exist", "2 replica(s), 0 to 1"});
  ExpectError(engine->connectStreamToRecords("in", 7, {absl::Span<const char>(
                                                          reinterpret_cast<char*>(buf.data()), 8)}),
              absl::StatusCode::kInvalidArgument, {"replica 7 does not exist"});
  // The engine still runs, connected to the replicas that exist.
  absl::Status s = engine->connectStream("in", buf.data(), buf.data() + 2);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->load(t.device);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->run();
  EXPECT_TRUE(s.ok()) << s;
  ExpectEngineWorks();
}

// Replica 0 skips the reduction that replica 1 runs: an error naming both
// places, not a hang.
TEST_F(PoplarSimBadInputTest, AReplicaSkipsAReduction) {
  TwoReplicas t;
  Tensor index = t.graph.addReplicationIndexConstant();
  t.graph.setTileMapping(index, 0);
  Sequence reduce;
  reduce.add(CrossReplicaReduce(t.x, t.x, CollectiveOperator::ADD, 0, "grads"));
  auto engine = Engine::create(t.graph, Sequence({Copy(t.in, t.x), If(index, reduce)}));
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<float> buf(2);
  absl::Status s = engine->connectStream("in", buf.data(), buf.data() + 2);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->load(t.device);
  ASSERT_TRUE(s.ok()) << s;
  ExpectError(engine->run(), absl::StatusCode::kFailedPrecondition,
              {"CrossReplicaReduce 'grads'", "replica 1 waits here but replica 0 finished"});
  ExpectEngineWorks();
}

// With host threads the replicas run side by side: a replica that fails
// still gives the error a run on one thread gives (the first replica's),
// and the engine runs again once the cause is mended.
TEST_F(PoplarSimBadInputTest, AReplicaFailsWhileReplicasRunSideBySide) {
  TwoReplicas t;
  auto engine = Engine::create(
      t.graph, Sequence({Copy(t.in, t.x),
                         CrossReplicaReduce(t.x, t.x, CollectiveOperator::ADD, 0, "grads")}));
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<float> buf = {1, 2};
  // Only replica 0 has its input: replica 1 fails at its first copy.
  absl::Status s = engine->connectStream("in", 0u, buf.data(), buf.data() + 2);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->load(t.device);
  ASSERT_TRUE(s.ok()) << s;
  SpawnedHostThreads two(2);
  for (HostThreads* threads : std::vector<HostThreads*>{&two, nullptr}) {
    engine->setHostThreads(threads);
    ExpectError(engine->run(), absl::StatusCode::kFailedPrecondition,
                {"Stream 'in'", "not connected"});
  }
  s = engine->connectStream("in", 1u, buf.data(), buf.data() + 2);
  ASSERT_TRUE(s.ok()) << s;
  engine->setHostThreads(&two);
  s = engine->run();
  EXPECT_TRUE(s.ok()) << s;
  ExpectEngineWorks();
}

}  // namespace
}  // namespace poplar_sim
