// An engine running a subset of a job's replicas: global replication
// indices, and reductions spanning engines that give the same bits as one
// engine running every replica. Two engines in two threads stand for two
// processes; an in-memory exchange stands for MPI.
#include "poplar_sim/replica_subset.h"

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/device.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/gcl/collectives.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace {

using namespace program;  // NOLINT: the Poplar style
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Every engine's allGather waits for the others', then each gets them all
// in order of their first replica. (std::mutex, not absl::Mutex: Debian's
// Abseil is not built for ThreadSanitizer, which then reports its Await.)
class InMemoryExchange {
 public:
  explicit InMemoryExchange(unsigned instances) : parts_(instances) {}
  // The view of instance `i`.
  std::shared_ptr<CrossInstanceExchange> For(unsigned i) {
    struct View : CrossInstanceExchange {
      InMemoryExchange* shared = nullptr;
      unsigned index = 0;
      absl::Status allGather(absl::Span<const char> local, absl::Span<char> global,
                             const std::string& what) override {
        return shared->Gather(index, local, global);
      }
    };
    auto view = std::make_shared<View>();
    view->shared = this;
    view->index = i;
    return view;
  }

 private:
  absl::Status Gather(unsigned i, absl::Span<const char> local, absl::Span<char> global) {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t round = round_;
    parts_[i].assign(local.begin(), local.end());
    if (++arrived_ == parts_.size()) {
      // Everyone is here: the round's result, kept until all have read it
      // (the first to leave may start the next round meanwhile).
      std::vector<char>& all = results_[round];
      for (const std::vector<char>& part : parts_) all.insert(all.end(), part.begin(), part.end());
      readers_[round] = static_cast<unsigned>(parts_.size());
      arrived_ = 0;
      ++round_;
      next_round_.notify_all();
    } else {
      next_round_.wait(lock, [this, round] { return round_ != round; });
    }
    const std::vector<char>& all = results_[round];
    if (all.size() != global.size()) return absl::InternalError("sizes differ");
    std::memcpy(global.data(), all.data(), all.size());
    if (--readers_[round] == 0) {
      results_.erase(round);
      readers_.erase(round);
    }
    return absl::OkStatus();
  }
  std::mutex mu_;  // guards everything below
  std::condition_variable next_round_;
  std::vector<std::vector<char>> parts_;
  std::map<uint64_t, std::vector<char>> results_;
  std::map<uint64_t, unsigned> readers_;
  unsigned arrived_ = 0;
  uint64_t round_ = 0;
};

// x (3 floats) streams in per replica; outputs: the replication index, the
// sum of x over all replicas, the mean over groups of 2, and the sum of the
// indices (an unsigned int reduction).
struct Job {
  Job(unsigned ipus, unsigned replicas)
      : device(testing::SmallDevice(4, ipus)),
        graph(device.getTarget(), replication_factor(replicas)) {
    Tensor x = graph.addVariable(FLOAT, {3}, "x");
    graph.setTileMapping(x, 1);
    DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, 3);
    prog.add(Copy(in, x));
    Tensor index = graph.addReplicationIndexConstant("index");
    graph.setTileMapping(index, 0);
    Tensor sum = gcl::allReduceCrossReplica(graph, x, gcl::CollectiveOperator::ADD, prog, {}, "sum");
    Tensor mean = gcl::allReduceCrossReplica(graph, x, gcl::CollectiveOperator::MEAN, prog,
                                             gcl::CommGroup{2}, "pair_mean");
    Tensor index_sum = gcl::allReduceCrossReplica(graph, index, gcl::CollectiveOperator::ADD,
                                                  prog, {}, "index_sum");
    struct Out { const char* name; Tensor t; Type type; size_t n; };
    for (const Out& o : {Out{"index", index, UNSIGNED_INT, 1}, Out{"sum", sum, FLOAT, 3},
                         Out{"mean", mean, FLOAT, 3}, Out{"index_sum", index_sum, UNSIGNED_INT, 1}}) {
      DataStream s = graph.addDeviceToHostFIFO(o.name, o.type, o.n);
      prog.add(Copy(o.t, s));
    }
  }
  // Runs replicas [first, first + R) of a job of `global` replicas; each
  // replica's outputs as bytes, in the order index, sum, mean, index_sum.
  std::vector<std::vector<char>> Run(unsigned global, unsigned first,
                                     std::shared_ptr<CrossInstanceExchange> exchange,
                                     absl::Status* status, HostNetwork network = {}) {
    const unsigned n = graph.getReplicationFactor();
    absl::StatusOr<Engine> engine = Engine::create(graph, prog);
    if (!engine.ok()) {
      *status = engine.status();
      return {};
    }
    *status = engine->setRuntimeReplicaSubset({global, first, std::move(exchange), network});
    if (!status->ok()) return {};
    inputs.assign(n, {});
    std::vector<std::vector<char>> out(n, std::vector<char>(4 + 12 + 12 + 4));
    for (unsigned r = 0; r < n; ++r) {
      const float g = static_cast<float>(first + r);
      // Magnitudes far apart: the order of summation shows in the bits.
      inputs[r] = {g == 0 ? 1e8f : 1.f / (g + 2), g * 1e7f + 1.f / 3, -g / 7};
      absl::Status s = engine->connectStream("in", r, inputs[r].data(), inputs[r].data() + 3);
      char* o = out[r].data();
      s.Update(engine->connectStream("index", r, o, o + 4));
      s.Update(engine->connectStream("sum", r, o + 4, o + 16));
      s.Update(engine->connectStream("mean", r, o + 16, o + 28));
      s.Update(engine->connectStream("index_sum", r, o + 28, o + 32));
      if (!s.ok()) {
        *status = s;
        return {};
      }
    }
    *status = engine->load(device);
    if (status->ok()) *status = engine->run();
    if (status->ok()) {
      stats = engine->getLastRunStats();
      profile = engine->getProfile();
    }
    return out;
  }
  Device device;
  Graph graph;
  Sequence prog;
  std::vector<std::vector<float>> inputs;
  RunStats stats;   // of the last successful Run
  Profile profile;  // likewise
};

// The network cycles the profile gives its cross-replica reductions per
// execution.
uint64_t ProfiledNetworkCycles(const Profile& p) {
  uint64_t cycles = 0;
  for (const StepProfile& s : p.steps) {
    if (s.kind == "CrossReplicaReduce") cycles += s.staticCost.networkCycles;
  }
  return cycles;
}

uint32_t IndexOf(const std::vector<char>& out) {
  uint32_t v;
  std::memcpy(&v, out.data(), 4);
  return v;
}

TEST(ReplicaSubsetTest, TwoEnginesOfTwoReplicasMatchOneOfFourBitForBit) {
  Job whole(4, 4);
  absl::Status s;
  const std::vector<std::vector<char>> expected = whole.Run(0, 0, nullptr, &s);
  ASSERT_TRUE(s.ok()) << s;

  InMemoryExchange exchange(2);
  Job a(2, 2), b(2, 2);
  absl::Status sa, sb;
  std::vector<std::vector<char>> out_a, out_b;
  std::thread ta([&] { out_a = a.Run(4, 0, exchange.For(0), &sa); });
  std::thread tb([&] { out_b = b.Run(4, 2, exchange.For(1), &sb); });
  ta.join();
  tb.join();
  ASSERT_TRUE(sa.ok()) << sa;
  ASSERT_TRUE(sb.ok()) << sb;
  ASSERT_EQ(out_a.size(), 2u);
  ASSERT_EQ(out_b.size(), 2u);
  EXPECT_EQ(IndexOf(out_a[0]), 0u);
  EXPECT_EQ(IndexOf(out_a[1]), 1u);
  EXPECT_EQ(IndexOf(out_b[0]), 2u);
  EXPECT_EQ(IndexOf(out_b[1]), 3u);
  // 0 + 1 + 2 + 3 on every replica.
  for (const auto& out : {out_a[0], out_a[1], out_b[0], out_b[1]}) {
    uint32_t index_sum;
    std::memcpy(&index_sum, out.data() + 28, 4);
    EXPECT_EQ(index_sum, 6u);
  }
  EXPECT_EQ(out_a[0], expected[0]);
  EXPECT_EQ(out_a[1], expected[1]);
  EXPECT_EQ(out_b[0], expected[2]);
  EXPECT_EQ(out_b[1], expected[3]);
  // The pairs' means differ: groups are global (0-1 on a, 2-3 on b).
  EXPECT_NE(std::vector<char>(out_a[0].begin() + 16, out_a[0].begin() + 28),
            std::vector<char>(out_b[0].begin() + 16, out_b[0].begin() + 28));
}

// Two engines of 2 replicas each: "sum" (12 bytes) and "index_sum" (4)
// reduce over all 4 replicas, so over both processes; "pair_mean" stays in
// each process. A ring over 2 processes sends 2 (2 - 1) / 2 = 1 x the
// buffer per process and costs 2 messages of latency.
TEST(ReplicaSubsetTest, ReductionsSpanningProcessesCostTheHostNetwork) {
  const HostNetwork slow{/*bytesPerSecond=*/1e6, /*latencySeconds=*/1e-3};
  InMemoryExchange exchange(2);
  Job a(2, 2), b(2, 2);
  absl::Status sa, sb;
  std::thread ta([&] { a.Run(4, 0, exchange.For(0), &sa, slow); });
  std::thread tb([&] { b.Run(4, 2, exchange.For(1), &sb, slow); });
  ta.join();
  tb.join();
  ASSERT_TRUE(sa.ok()) << sa;
  ASSERT_TRUE(sb.ok()) << sb;
  const Target& t = a.device.getTarget();
  const uint64_t expected =
      t.secondsToCycles(12 / 1e6 + 2e-3) + t.secondsToCycles(4 / 1e6 + 2e-3);
  EXPECT_EQ(a.stats.cost.networkBytes, 16u);
  EXPECT_EQ(a.stats.cost.networkCycles, expected);
  EXPECT_EQ(b.stats.cost.networkCycles, expected);
  // It is part of the run's time: about 4 ms at this network's speed, and
  // of each reduction's cost per execution in the profile.
  EXPECT_GE(a.stats.cycles, expected);
  EXPECT_EQ(ProfiledNetworkCycles(a.profile), expected);

  // One engine with every replica: no network at all.
  Job whole(4, 4);
  absl::Status s;
  whole.Run(0, 0, nullptr, &s, slow);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(whole.stats.cost.networkBytes, 0u);
  EXPECT_EQ(whole.stats.cost.networkCycles, 0u);
  EXPECT_EQ(ProfiledNetworkCycles(whole.profile), 0u);
  EXPECT_LT(whole.stats.cycles, a.stats.cycles);
}

TEST(ReplicaSubsetTest, AHostNetworkWithoutBandwidthIsRefused) {
  Job a(2, 2);
  absl::StatusOr<Engine> engine = Engine::create(a.graph, a.prog);
  ASSERT_TRUE(engine.ok()) << engine.status();
  InMemoryExchange exchange(2);
  for (const HostNetwork& bad : {HostNetwork{0, 1e-6}, HostNetwork{-1, 1e-6},
                                 HostNetwork{1e9, -1}, HostNetwork{1e9, NAN}}) {
    absl::Status s = engine->setRuntimeReplicaSubset({4, 0, exchange.For(0), bad});
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("the host network's bandwidth must be"));
  }
}

TEST(ReplicaSubsetTest, AnExchangeErrorEndsTheRunWithIt) {
  struct Failing : CrossInstanceExchange {
    absl::Status allGather(absl::Span<const char>, absl::Span<char>,
                           const std::string& what) override {
      return absl::DeadlineExceededError("instance 1 did not reach " + what);
    }
  };
  Job a(2, 2);
  absl::Status s;
  a.Run(4, 0, std::make_shared<Failing>(), &s);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("instance 1 did not reach cross-replica reduction 'sum'"));
}

TEST(ReplicaSubsetTest, SubsetsThatDoNotFitAreRefused) {
  Job a(2, 2);
  absl::StatusOr<Engine> engine = Engine::create(a.graph, a.prog);
  ASSERT_TRUE(engine.ok()) << engine.status();
  absl::Status s = engine->setRuntimeReplicaSubset({3, 2, nullptr});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("the engine's 2 replicas from replica 2 do not fit in the job's 3"));
  s = engine->setRuntimeReplicaSubset({4, 0, nullptr});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("2 replicas run elsewhere but no"));
  // All replicas local: no exchange needed.
  s = engine->setRuntimeReplicaSubset({2, 0, nullptr});
  EXPECT_TRUE(s.ok()) << s;
}

TEST(ReplicaSubsetTest, GroupsSpanningEnginesNeedASubsetThatTheyDivide) {
  Device device = testing::SmallDevice(4, 2);
  Graph graph(device.getTarget(), replication_factor(2));
  Tensor x = graph.addVariable(FLOAT, {1}, "x");
  graph.setTileMapping(x, 0);
  Sequence prog;
  // Groups of 4 over engines of 2 replicas: built, as a group spanning two.
  gcl::allReduceInPlaceCrossReplica(graph, x, gcl::CollectiveOperator::ADD, prog,
                                    gcl::CommGroup{4}, "quad");
  ASSERT_TRUE(graph.status().ok()) << graph.status();
  absl::StatusOr<Engine> engine = Engine::create(graph, prog);
  ASSERT_TRUE(engine.ok()) << engine.status();
  ASSERT_EQ(absl::OkStatus(), engine->load(device));
  // Alone, the engine has no other replicas to reduce with.
  absl::Status s = engine->run();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("a replica group of 4 spans more than the engine's 2 replicas"));
  // In a job of 6 replicas, groups of 4 do not fit.
  InMemoryExchange exchange(3);
  s = engine->setRuntimeReplicaSubset({6, 0, exchange.For(0)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("'quad' has replica groups of 4, which do not divide the job's 6"));
}

}  // namespace
}  // namespace poplar_sim
