// Bad input to poplar_sim's programs used directly: sequences that contain
// themselves, cycles through repeats and switches, sharing that expands
// exponentially, deep nesting, predicates of the wrong type, duplicate
// switch cases, copies into broadcast or overlapping views, variables many
// times larger than the target, and bools from the host that are neither
// 0 nor 1. Each case asserts the status code and the words that name the
// culprit, then that the object (or the device) still works.

#include "tests/bad_input/poplar_sim_bad_input.h"

namespace poplar_sim {
namespace {

using namespace program;  // NOLINT: the Poplar style
using namespace bad_input;  // NOLINT: the shared checks and fixture
using ::testing::HasSubstr;

// --- Programs ------------------------------------------------------------------------

TEST_F(PoplarSimBadInputTest, SequenceAddedToItself) {
  Sequence loop({}, "loop");
  loop.add(loop);
  ExpectError(Engine::create(doubler_.graph, loop).status(), absl::StatusCode::kInvalidArgument,
              {"Program 0: the Sequence 'loop' contains itself"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, CycleThroughARepeat) {
  Sequence outer({}, "outer"), inner({}, "inner");
  outer.add(inner);
  inner.add(Repeat(3, outer, "thrice"));
  ExpectError(Engine::create(doubler_.graph, {doubler_.Prog(), outer}).status(),
              absl::StatusCode::kInvalidArgument, {"Program 1: the Repeat 'thrice' contains itself"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, SwitchCaseContainingTheSwitch) {
  Graph& g = doubler_.graph;
  Tensor c = g.addConstant<int>(INT, {}, 1, "ctl");
  g.setTileMapping(c, 0);
  Switch sw(c, Sequence(), "sw");
  sw.add(1, sw);
  ExpectError(Engine::create(g, sw).status(), absl::StatusCode::kInvalidArgument,
              {"the Switch 'sw' contains itself"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, SharingThatExpandsExponentially) {
  Program p = Execute(doubler_.cs);
  for (int i = 0; i < 64; ++i) p = Sequence({p, p});
  ExpectError(Engine::create(doubler_.graph, p).status(), absl::StatusCode::kResourceExhausted,
              {"more than 16777216 steps"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, DeepNestingRuns) {
  Sequence root({}, "root");
  Sequence cur = root;
  for (int i = 0; i < 200000; ++i) {
    Sequence next;
    cur.add(next);
    cur = next;
  }
  cur.add(doubler_.Prog());
  auto e = Engine::create(doubler_.graph, root, {{"debug.allowOutOfMemory", "true"}});
  ASSERT_TRUE(e.ok()) << e.status();
  engine_ = std::make_unique<Engine>(std::move(*e));
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, PredicateOfWrongTypeAndEmptyTensor) {
  Graph& g = doubler_.graph;
  ExpectError(Engine::create(g, If(doubler_.x, Sequence())).status(),
              absl::StatusCode::kInvalidArgument, {"If: the predicate 'x' float[4]"});
  ExpectError(Engine::create(g, WriteUndef(Tensor())).status(),
              absl::StatusCode::kFailedPrecondition, {"WriteUndef", "empty"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, SwitchWithDuplicateCases) {
  Graph& g = doubler_.graph;
  Tensor c = g.addConstant<int>(INT, {}, 1, "ctl");
  g.setTileMapping(c, 0);
  Switch sw(c);
  sw.add(7, Sequence()).add(7, Sequence());
  ExpectError(Engine::create(g, sw).status(), absl::StatusCode::kInvalidArgument,
              {"case value 7 appears more than once"});
  ExpectEngineWorks();
}

TEST_F(PoplarSimBadInputTest, CopyIntoABroadcastView) {
  Graph& g = doubler_.graph;
  Tensor s = g.addVariable(FLOAT, {1}, "scalar");
  g.setTileMapping(s, 0);
  ExpectError(Engine::create(g, Copy(doubler_.x, s.broadcast(4, 0))).status(),
              absl::StatusCode::kInvalidArgument, {"'x' float[4]", "repeats elements"});
  ExpectEngineWorks();
}

// Two views of different strides that share one element (x[2] is both the
// second even element and the last of a slice): found from the views'
// arithmetic, however long they are.
// A variable of 2^34 bools on a 4-tile target, copied reversed into a
// replicated reduction (a fuzz finding: costing the reversed view element by
// element ran for minutes). Refused before any program is costed.
TEST_F(PoplarSimBadInputTest, VariableManyTimesLargerThanTheTarget) {
  Device device = testing::SmallDevice(4, 2);
  Graph g(device.getTarget(), replication_factor(2));
  Tensor huge = g.addVariable(BOOL, {size_t{1} << 34}, "huge");
  g.setTileMapping(huge, 0);
  Sequence prog;
  prog.add(CrossReplicaReduce(huge, huge.reverse(0), CollectiveOperator::ADD, 0, "sum"));
  absl::Status s = Engine::create(g, prog).status();
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"Tensor 'huge' bool[17179869184] needs 17179869184 bytes", "can never fit"});
  ExpectDeviceWorks();
}

TEST_F(PoplarSimBadInputTest, CopyIntoViewsOfDifferentStridesThatOverlap) {
  Graph& g = doubler_.graph;
  Tensor src = g.addVariable(FLOAT, {4}, "src");
  g.setTileMapping(src, 0);
  Tensor evens = doubler_.x.subSample(2, 0);  // x[0], x[2]
  Tensor tail = doubler_.x.slice(2, 4);       // x[2], x[3]
  ExpectError(Engine::create(g, Copy(src, concat(evens, tail))).status(),
              absl::StatusCode::kInvalidArgument, {"'x' float[4]", "repeats elements"});
  ExpectEngineWorks();
}

// A host byte other than 0 or 1 written where a bool goes (a fuzz finding:
// loading it as a C++ bool was undefined): device memory holds 0 or 1, so
// the byte 197 reads back as true and drives an If as true.
TEST_F(PoplarSimBadInputTest, BoolFromTheHostThatIsNeitherZeroNorOne) {
  Graph& g = doubler_.graph;
  Tensor flag = g.addVariable(BOOL, {}, "flag");
  g.setTileMapping(flag, 0);
  Tensor chosen = g.addVariable(INT, {}, "chosen");
  g.setTileMapping(chosen, 0);
  Tensor one = g.addConstant<int>(INT, {}, 1, "one");
  Tensor two = g.addConstant<int>(INT, {}, 2, "two");
  g.setTileMapping(one, 0);
  g.setTileMapping(two, 0);
  DataStream flags = g.addHostToDeviceFIFO("flags", BOOL, 1);
  g.createHostRead("flag", flag);
  g.createHostRead("chosen", chosen);
  auto engine = Engine::create(g, Sequence({Copy(flags, flag), If(flag, Copy(one, chosen),
                                                                   Copy(two, chosen))}));
  ASSERT_TRUE(engine.ok()) << engine.status();
  unsigned char byte = 197;
  absl::Status s = engine->connectStream("flags", &byte, &byte + 1);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->load(device_);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->run();
  ASSERT_TRUE(s.ok()) << s;
  unsigned char back = 99;
  int got = 0;
  s = engine->readTensor("flag", &back, &back + 1);
  ASSERT_TRUE(s.ok()) << s;
  s = engine->readTensor("chosen", &got, &got + 1);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(back, 1);
  EXPECT_EQ(got, 1);
  ExpectDeviceWorks();
}

}  // namespace
}  // namespace poplar_sim
