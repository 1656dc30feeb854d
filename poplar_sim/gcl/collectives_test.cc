// Replicated graphs: each replica's own memory and streams, the replication
// index, cross-replica reductions (values, groups, cost) and the errors of
// a replica that skips a reduction.
#include "poplar_sim/gcl/collectives.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/device.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace {

using namespace program;  // NOLINT: the Poplar style
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Element i of replica r's input: {r + 1, 10 (r + 1), -r} for the first
// three; beyond them, values of many magnitudes and both signs, so that
// their sums and products round.
float Input(unsigned r, size_t i) {
  switch (i) {
    case 0: return r + 1.0f;
    case 1: return 10.0f * (r + 1);
    case 2: return -1.0f * r;
  }
  const float mantissa = static_cast<float>((i * 2654435761u + r * 40503u) % 100003) - 50000.0f;
  return std::ldexp(mantissa, static_cast<int>(i % 17) - 8) / 3.0f;
}

// A graph of `replicas` replicas over 4 IPUs (4 tiles each): x (`size`
// floats) streams in, `reduce` adds its programs, y streams out.
struct Replicated {
  explicit Replicated(unsigned replicas, size_t size = 3)
      : device(testing::SmallDevice(4, 4)),
        graph(device.getTarget(), replication_factor(replicas)),
        size(size) {
    x = graph.addVariable(FLOAT, {size}, "x");
    graph.setTileMapping(x, 1);
    in = graph.addHostToDeviceFIFO("in", FLOAT, size);
    out = graph.addDeviceToHostFIFO("out", FLOAT, size);
    prog.add(Copy(in, x));
  }
  // Runs with replica r fed Input(r, i) (on `threads` if given); returns
  // each replica's y.
  std::vector<std::vector<float>> Run(const Tensor& y, HostThreads* threads = nullptr) {
    prog.add(Copy(y, out));
    const unsigned n = graph.getReplicationFactor();
    auto engine = Engine::create(graph, prog);
    EXPECT_TRUE(engine.ok()) << engine.status();
    if (!engine.ok()) return {};
    engine->setHostThreads(threads);
    std::vector<std::vector<float>> inputs(n, std::vector<float>(size)),
        outputs(n, std::vector<float>(size));
    for (unsigned r = 0; r < n; ++r) {
      for (size_t i = 0; i < size; ++i) inputs[r][i] = Input(r, i);
      {
        absl::Status status =
            engine->connectStream("in", r, inputs[r].data(), inputs[r].data() + size);
        EXPECT_TRUE(status.ok()) << status;
      }
      {
        absl::Status status =
            engine->connectStream("out", r, outputs[r].data(), outputs[r].data() + size);
        EXPECT_TRUE(status.ok()) << status;
      }
    }
    absl::Status s = engine->load(device);
    EXPECT_TRUE(s.ok()) << s;
    s = engine->run();
    EXPECT_TRUE(s.ok()) << s;
    stats = engine->getLastRunStats();
    return outputs;
  }
  Device device;
  Graph graph;
  size_t size;
  Tensor x;
  DataStream in, out;
  Sequence prog;
  RunStats stats;
};

TEST(CollectivesTest, ReplicaTargetIsAShareOfTheDevice) {
  Replicated r(2);
  EXPECT_EQ(r.graph.getReplicationFactor(), 2u);
  EXPECT_EQ(r.graph.getTarget().getNumIPUs(), 2u);
  EXPECT_EQ(r.graph.getTarget().getNumTiles(), 8u);
  Graph bad(r.device.getTarget(), replication_factor(3));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("a replication factor of 3 does not divide the 4 IPU(s)"));
}

TEST(CollectivesTest, SumAndMeanOverAllReplicas) {
  Replicated r(4);
  Tensor sum = gcl::allReduceCrossReplica(r.graph, r.x, CollectiveOperator::ADD, r.prog, {},
                                          "sum");
  auto out = r.Run(sum);
  ASSERT_EQ(out.size(), 4u);
  for (const auto& y : out) EXPECT_THAT(y, ElementsAre(10, 100, -6));

  Replicated m(4);
  gcl::allReduceInPlaceCrossReplica(m.graph, m.x, CollectiveOperator::MEAN, m.prog, {}, "mean");
  for (const auto& y : m.Run(m.x)) EXPECT_THAT(y, ElementsAre(2.5, 25, -1.5));
}

// Each replica's values of an integer type reduced by `op`: replica r is
// fed inputs[r]; returns each replica's result.
template <typename T>
std::vector<std::vector<T>> ReduceIntegers(CollectiveOperator op,
                                           std::vector<std::vector<T>> inputs) {
  const unsigned replicas = static_cast<unsigned>(inputs.size());
  const size_t size = inputs[0].size();
  const Type type = TypeOf<T>::value;
  Device device = testing::SmallDevice(4, 4);
  Graph graph(device.getTarget(), replication_factor(replicas));
  Tensor x = graph.addVariable(type, {size}, "x");
  graph.setTileMapping(x, 1);
  DataStream in = graph.addHostToDeviceFIFO("in", type, size);
  DataStream out = graph.addDeviceToHostFIFO("out", type, size);
  Sequence prog;
  prog.add(Copy(in, x));
  prog.add(Copy(gcl::allReduceCrossReplica(graph, x, op, prog, {}, "reduce"), out));
  auto engine = Engine::create(graph, prog);
  EXPECT_TRUE(engine.ok()) << engine.status();
  if (!engine.ok()) return {};
  std::vector<std::vector<T>> outputs(replicas, std::vector<T>(size));
  for (unsigned r = 0; r < replicas; ++r) {
    absl::Status s = engine->connectStream("in", r, inputs[r].data(), inputs[r].data() + size);
    EXPECT_TRUE(s.ok()) << s;
    s = engine->connectStream("out", r, outputs[r].data(), outputs[r].data() + size);
    EXPECT_TRUE(s.ok()) << s;
  }
  absl::Status s = engine->load(device);
  EXPECT_TRUE(s.ok()) << s;
  s = engine->run();
  EXPECT_TRUE(s.ok()) << s;
  return outputs;
}

// Integer reductions in the integers' own arithmetic, as the IPU adds and
// multiplies integers: sums and products wrap round at the type's width,
// minima and maxima and 64-bit values past 2^53 are exact, a mean is the
// exact mean rounded toward zero.
TEST(CollectivesTest, IntegerReductionsWrapRoundAndStayExact) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  const std::vector<std::vector<int32_t>> ints = {{kMax, kMin, 7, -7, 65536},
                                                  {1, -1, 2, 2, 65536}};
  for (const auto& y : ReduceIntegers<int32_t>(CollectiveOperator::ADD, ints)) {
    EXPECT_THAT(y, ElementsAre(kMin, kMax, 9, -5, 131072));
  }
  for (const auto& y : ReduceIntegers<int32_t>(CollectiveOperator::MUL, ints)) {
    EXPECT_THAT(y, ElementsAre(kMax, kMin, 14, -14, 0));  // 2^32 wraps to 0
  }
  for (const auto& y : ReduceIntegers<int32_t>(CollectiveOperator::MEAN, ints)) {
    // (2^31 - 1 + 1) / 2, (-2^31 - 1) / 2 toward zero, 9 / 2, -5 / 2.
    EXPECT_THAT(y, ElementsAre(1 << 30, -(1 << 30), 4, -2, 65536));
  }
  for (const auto& y : ReduceIntegers<int32_t>(CollectiveOperator::MIN, ints)) {
    EXPECT_THAT(y, ElementsAre(1, kMin, 2, -7, 65536));
  }
  // 2^53 + 1 is not a double; 2^62 + 2^62 wraps to -2^63.
  const int64_t big = (int64_t{1} << 53) + 1, huge = int64_t{1} << 62;
  for (const auto& y :
       ReduceIntegers<int64_t>(CollectiveOperator::ADD, {{big, huge, -3}, {2, huge, -4}})) {
    EXPECT_THAT(y, ElementsAre(big + 2, std::numeric_limits<int64_t>::min(), -7));
  }
  for (const auto& y :
       ReduceIntegers<int64_t>(CollectiveOperator::MAX, {{big, huge, -3}, {big - 1, 2, -4}})) {
    EXPECT_THAT(y, ElementsAre(big, huge, -3));
  }
  for (const auto& y : ReduceIntegers<uint32_t>(CollectiveOperator::ADD,
                                                {{4294967295u, 5}, {2, 6}, {1, 7}, {0, 0}})) {
    EXPECT_THAT(y, ElementsAre(2u, 18u));
  }
  for (const auto& y :
       ReduceIntegers<int8_t>(CollectiveOperator::ADD, {{100, -100}, {100, -100}})) {
    EXPECT_THAT(y, ElementsAre(int8_t{-56}, int8_t{56}));
  }
}

// Long float reductions (blocks, vector chunks and a remainder) give each
// element's reduction computed in double in replica order, rounded once to
// float, bit for bit, in place and into a new tensor.
TEST(CollectivesTest, LongFloatReductionsAreTheDoubleResultInReplicaOrder) {
  const size_t n = 5003;  // two blocks of 2048 and a part; not a multiple of 16
  const CollectiveOperator ops[] = {CollectiveOperator::ADD, CollectiveOperator::MEAN,
                                    CollectiveOperator::MUL, CollectiveOperator::MIN,
                                    CollectiveOperator::MAX};
  for (unsigned replicas : {2u, 4u}) {
    for (CollectiveOperator op : ops) {
      for (bool inPlace : {false, true}) {
        SCOPED_TRACE(::testing::Message() << replicas << " replicas, operator "
                                        << static_cast<int>(op) << (inPlace ? ", in place" : ""));
        Replicated r(replicas, n);
        Tensor y = r.x;
        if (inPlace) {
          gcl::allReduceInPlaceCrossReplica(r.graph, r.x, op, r.prog, {}, "long");
        } else {
          y = gcl::allReduceCrossReplica(r.graph, r.x, op, r.prog, {}, "long");
        }
        auto out = r.Run(y);
        ASSERT_EQ(out.size(), replicas);
        size_t wrong = 0;
        for (size_t i = 0; i < n; ++i) {
          double acc = Input(0, i);
          for (unsigned k = 1; k < replicas; ++k) {
            const double v = Input(k, i);
            switch (op) {
              case CollectiveOperator::ADD:
              case CollectiveOperator::MEAN: acc += v; break;
              case CollectiveOperator::MUL: acc *= v; break;
              case CollectiveOperator::MIN: acc = std::min(acc, v); break;
              case CollectiveOperator::MAX: acc = std::max(acc, v); break;
            }
          }
          if (op == CollectiveOperator::MEAN) acc /= replicas;
          const float want = static_cast<float>(acc);
          for (unsigned k = 0; k < replicas; ++k) {
            if (std::memcmp(&out[k][i], &want, sizeof want) != 0 && wrong++ < 5) {
              ADD_FAILURE() << "replica " << k << " element " << i << ": " << out[k][i]
                            << ", want " << want;
            }
          }
        }
        EXPECT_EQ(wrong, 0u);
      }
    }
  }
}

// A concatenation of variables (the combined reduction of several
// gradients, compiler/cross_replica_combining.h) is reduced piece by piece
// straight into the output: every element the double result in replica
// order, as for one variable, whatever pieces a host thread's range spans;
// with groups of replicas too, and in place (over the pieces themselves,
// as an all-reduce of gradients that nothing else reads is).
TEST(CollectivesTest, AConcatenationOfVariablesIsReducedPieceByPiece) {
  // Two host threads split the 40,003 elements inside the piece of 3.
  const std::vector<size_t> pieces = {20000, 3, 20000};
  const size_t n = 40003;
  for (unsigned replicas : {2u, 4u}) {
    for (unsigned group : {0u, 2u}) {
      for (CollectiveOperator op : {CollectiveOperator::ADD, CollectiveOperator::MAX})
      for (bool inPlace : {false, true}) {
        SCOPED_TRACE(::testing::Message() << replicas << " replicas, groups of " << group
                                        << ", operator " << static_cast<int>(op)
                                        << (inPlace ? ", in place" : ""));
        Replicated r(replicas, n);
        std::vector<Tensor> parts;
        size_t at = 0;
        for (size_t len : pieces) {
          Tensor p = r.graph.addVariable(FLOAT, {len}, "piece");
          r.graph.setTileMapping(p, 2);
          r.prog.add(Copy(r.x.slice(at, at + len), p));
          parts.push_back(p);
          at += len;
        }
        SpawnedHostThreads threads(2);
        Tensor y = concat(parts);
        if (inPlace) {
          gcl::allReduceInPlaceCrossReplica(r.graph, y, op, r.prog, gcl::CommGroup{group},
                                            "pieces");
        } else {
          y = gcl::allReduceCrossReplica(r.graph, y, op, r.prog, gcl::CommGroup{group},
                                         "pieces");
        }
        auto out = r.Run(y, &threads);
        ASSERT_EQ(out.size(), replicas);
        const unsigned size = group == 0 ? replicas : group;
        size_t wrong = 0;
        for (unsigned k = 0; k < replicas; ++k) {
          const unsigned first = k / size * size;
          for (size_t i = 0; i < n; ++i) {
            double acc = Input(first, i);
            for (unsigned q = first + 1; q < first + size; ++q) {
              acc = op == CollectiveOperator::ADD ? acc + Input(q, i)
                                                  : std::max(acc, double(Input(q, i)));
            }
            const float want = static_cast<float>(acc);
            if (std::memcmp(&out[k][i], &want, sizeof want) != 0 && wrong++ < 5) {
              ADD_FAILURE() << "replica " << k << " element " << i << ": " << out[k][i]
                            << ", want " << want;
            }
          }
        }
        EXPECT_EQ(wrong, 0u);
      }
    }
  }
}

TEST(CollectivesTest, GroupsOfConsecutiveReplicas) {
  Replicated r(4);
  Tensor mx = gcl::allReduceCrossReplica(r.graph, r.x, CollectiveOperator::MAX, r.prog,
                                         gcl::CommGroup{2}, "max");
  auto out = r.Run(mx);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_THAT(out[0], ElementsAre(2, 20, 0));  // replicas 0 and 1
  EXPECT_THAT(out[1], ElementsAre(2, 20, 0));
  EXPECT_THAT(out[2], ElementsAre(4, 40, -2));  // replicas 2 and 3
  EXPECT_THAT(out[3], ElementsAre(4, 40, -2));

  Replicated bad(4);
  gcl::allReduceCrossReplica(bad.graph, bad.x, CollectiveOperator::ADD, bad.prog,
                             gcl::CommGroup{3}, "odd");
  EXPECT_THAT(std::string(bad.graph.status().message()),
              HasSubstr("a replica group size of 3 does not divide the graph's replication "
                        "factor 4"));
}

TEST(CollectivesTest, ReplicationIndexDiffersPerReplica) {
  Replicated r(4);
  Tensor index = r.graph.addReplicationIndexConstant();
  r.graph.setTileMapping(index, 0);
  DataStream idx = r.graph.addDeviceToHostFIFO("index", UNSIGNED_INT, 1);
  r.prog.add(Copy(index, idx));
  auto engine = Engine::create(r.graph, r.prog);
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<unsigned> got(4, 99);
  std::vector<float> in(3), out(3);
  {
    absl::Status status = engine->connectStream("in", in.data(), in.data() + 3);
    ASSERT_TRUE(status.ok()) << status;
  }
  for (unsigned k = 0; k < 4; ++k) {
    {
      absl::Status status = engine->connectStream("index", k, &got[k], &got[k] + 1);
      ASSERT_TRUE(status.ok()) << status;
    }
  }
  {
    absl::Status status = engine->load(r.device);
    ASSERT_TRUE(status.ok()) << status;
  }
  absl::Status s = engine->run();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(got, ElementsAre(0, 1, 2, 3));
}

// The ring: each replica sends 2(R-1)/R of the bytes over one IPU-Link.
TEST(CollectivesTest, RingCostGrowsWithTheReplicaCountButLessThanLinearly) {
  const Target t = testing::SmallTarget(4, 4);
  uint64_t bytes[3] = {}, cycles[3] = {};
  const unsigned counts[3] = {1, 2, 4};
  for (int k = 0; k < 3; ++k) {
    Replicated r(counts[k]);
    gcl::allReduceInPlaceCrossReplica(r.graph, r.x, CollectiveOperator::ADD, r.prog);
    r.Run(r.x);
    bytes[k] = r.stats.cost.interIpuBytes;
    cycles[k] = r.stats.cost.interIpuCycles;
  }
  EXPECT_EQ(bytes[0], 0u);   // one replica: a local copy
  EXPECT_EQ(bytes[1], 12u);  // 2 (1/2) 12 bytes
  EXPECT_EQ(bytes[2], 18u);  // 2 (3/4) 12 bytes
  EXPECT_EQ(cycles[1], t.secondsToCycles(12 / t.arch().ipuLinkBytesPerSecond +
                                         2 * t.arch().ipuLinkLatencySeconds));
  EXPECT_GT(cycles[2], cycles[1]);
}

TEST(CollectivesTest, HostAccessOfEveryReplicaOrOfReplicaZero) {
  Replicated r(2);
  r.graph.createHostWrite("x", r.x);
  r.graph.createHostRead("x", r.x);
  auto engine = Engine::create(r.graph, Sequence());
  ASSERT_TRUE(engine.ok()) << engine.status();
  {
    absl::Status status = engine->load(r.device);
    ASSERT_TRUE(status.ok()) << status;
  }
  std::vector<float> one = {1, 2, 3}, both(6);
  {
    absl::Status status = engine->writeTensor("x", one.data(), one.data() + 3);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = engine->readTensor("x", both.data(), both.data() + 6);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_THAT(both, ElementsAre(1, 2, 3, 1, 2, 3));  // written to both replicas
  std::vector<float> each = {1, 2, 3, 4, 5, 6}, first(3);
  {
    absl::Status status = engine->writeTensor("x", each.data(), each.data() + 6);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = engine->readTensor("x", first.data(), first.data() + 3);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_THAT(first, ElementsAre(1, 2, 3));  // replica 0's
  {
    absl::Status status = engine->readTensor("x", both.data(), both.data() + 6);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_THAT(both, ElementsAre(1, 2, 3, 4, 5, 6));
  absl::Status s = engine->readTensor("x", both.data(), both.data() + 5);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("or 24 for all 2 replicas"));
  s = engine->connectStream("in", 2, one.data(), one.data() + 3);
  EXPECT_THAT(std::string(s.message()), HasSubstr("replica 2 does not exist"));
}

// Replica 0 skips the reduction that the others run: an error naming it,
// not a hang or a wrong value.
TEST(CollectivesTest, AReplicaThatSkipsAReductionIsAnError) {
  Replicated r(2);
  Tensor index = r.graph.addReplicationIndexConstant();
  r.graph.setTileMapping(index, 0);
  Sequence reduce;
  gcl::allReduceInPlaceCrossReplica(r.graph, r.x, CollectiveOperator::ADD, reduce, {}, "grads");
  r.prog.add(If(index, reduce));
  auto engine = Engine::create(r.graph, r.prog);
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<float> in(3);
  {
    absl::Status status = engine->connectStream("in", in.data(), in.data() + 3);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = engine->load(r.device);
    ASSERT_TRUE(status.ok()) << status;
  }
  absl::Status s = engine->run();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("CrossReplicaReduce 'grads' (step "));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("replica 1 waits here but replica 0 finished the program"));
}

}  // namespace
}  // namespace poplar_sim
