// The IPU event trace through the session: a small IPU graph runs, then the
// IpuEventTrace op returns what happened, as the vendor's ipu_event_trace
// does (tutorial section 3.4 builds one next to its sharded graph).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/event_trace.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using testing::IpuTest;

class EventTraceTest : public IpuTest {
 protected:
  void SetUp() override {
    IpuTest::SetUp();
    IpuEventTrace::Global().TakeEvents();  // what earlier tests left
  }
};

std::vector<IpuTraceEvent::Type> Types(const IpuTraceEvents& events) {
  std::vector<IpuTraceEvent::Type> types;
  for (const IpuTraceEvent& e : events.events()) types.push_back(e.type());
  return types;
}

std::vector<std::string> TensorNames(const IpuTraceEvent& e) {
  std::vector<std::string> names;
  for (const auto& t : e.data_transfer().tensors()) {
    names.push_back(t.name() + "=" + std::to_string(t.bytes()));
  }
  return names;
}

IpuTraceEvents FetchTrace(const ClientSession& session, const Output& report) {
  std::vector<Tensor> out;
  absl::Status s = session.Run({report}, &out);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return {};
  absl::StatusOr<IpuTraceEvents> events = ParseTraceEvents(out[0]);
  EXPECT_TRUE(events.ok()) << events.status();
  return events.ok() ? *events : IpuTraceEvents();
}

TEST_F(EventTraceTest, TheTutorialGraphsRunsAsEvents) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("cpu");
  auto shape = ops::Placeholder::Shape({2});
  auto pa = ops::Placeholder(cpu.WithOpName("a"), DT_FLOAT, shape);
  auto pb = ops::Placeholder(cpu.WithOpName("b"), DT_FLOAT, shape);
  auto pc = ops::Placeholder(cpu.WithOpName("c"), DT_FLOAT, shape);
  Output report = ipu::ops::ipu_event_trace(cpu);
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Output result = ops::Add(ipu.WithOpName("result"), ops::Add(ipu, pa, pb),
                           ops::Add(ipu, pa, pc));
  ClientSession::FeedType feeds = {
      {pa, {1.f, 1.f}}, {pb, {0.f, 1.f}}, {pc, {1.f, 5.f}}};
  testing::ProfilingSession session(root);

  const int64_t before = TraceNowMicros();
  std::vector<Tensor> out;
  {
    absl::Status call_status = session.Run(feeds, {result}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(out[0].DebugString(), "[3. 8.]");
  const IpuClusterProfile profile = session.last_profile().clusters.at(0);
  const int64_t after = TraceNowMicros();

  // The first run compiles, loads the engine, streams the three feeds in,
  // executes, and streams the result out.
  IpuTraceEvents first = FetchTrace(session, report);
  ASSERT_EQ(Types(first),
            (std::vector<IpuTraceEvent::Type>{
                IpuTraceEvent::COMPILE_BEGIN, IpuTraceEvent::COMPILE_END,
                IpuTraceEvent::LOAD_ENGINE,
                IpuTraceEvent::HOST_TO_DEVICE_TRANSFER, IpuTraceEvent::EXECUTE,
                IpuTraceEvent::DEVICE_TO_HOST_TRANSFER}));
  int64_t last = before;
  for (const IpuTraceEvent& e : first.events()) {
    EXPECT_EQ(e.ordinal(), 0);
    EXPECT_EQ(e.module_name(), "cluster_0");
    EXPECT_GE(e.timestamp_us(), last);
    EXPECT_LE(e.timestamp_us(), after);
    last = e.timestamp_us();
  }
  EXPECT_EQ(first.dropped_events(), 0u);
  EXPECT_EQ(first.events(1).compile_end().error(), "");
  EXPECT_GT(first.events(2).load_engine().bytes(), 0u);
  EXPECT_FALSE(first.events(2).load_engine().replaced_another_engine());
  const IpuTraceEvent& in = first.events(3);
  EXPECT_EQ(in.data_transfer().bytes(), 24u);  // three float[2] feeds
  EXPECT_EQ(TensorNames(in),
            (std::vector<std::string>{"a:0=8", "b:0=8", "c:0=8"}));
  const IpuTraceEvent& execute = first.events(4);
  EXPECT_EQ(execute.execute().cycles(), profile.cycles);
  EXPECT_DOUBLE_EQ(execute.execute().seconds(), profile.seconds);
  EXPECT_GT(execute.execute().cycles(), 0u);
  const IpuTraceEvent& result_out = first.events(5);
  EXPECT_EQ(result_out.data_transfer().bytes(), 8u);  // one float[2] result
  EXPECT_EQ(TensorNames(result_out), (std::vector<std::string>{"result:0=8"}));

  // A second run: the engine is compiled and on the device already.
  {
    absl::Status call_status = session.Run(feeds, {result}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  IpuTraceEvents second = FetchTrace(session, report);
  ASSERT_EQ(Types(second),
            (std::vector<IpuTraceEvent::Type>{
                IpuTraceEvent::HOST_TO_DEVICE_TRANSFER, IpuTraceEvent::EXECUTE,
                IpuTraceEvent::DEVICE_TO_HOST_TRANSFER}));
  EXPECT_EQ(second.events(0).data_transfer().bytes(), 24u);
  EXPECT_EQ(second.events(2).data_transfer().bytes(), 8u);
  EXPECT_GE(second.events(0).timestamp_us(), last);

  // Nothing ran since.
  EXPECT_EQ(FetchTrace(session, report).events_size(), 0);
}

// Two clusters on one device: the second run of each loads its engine again
// (an engine switch), and the trace says which cluster did what.
TEST_F(EventTraceTest, EngineSwitchesAreLoadEngineEvents) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("cpu");
  auto pa = ops::Placeholder(cpu.WithOpName("a"), DT_FLOAT,
                             ops::Placeholder::Shape({2}));
  Output report = ipu::ops::ipu_event_trace(cpu);
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  // IPU -> host -> IPU: two clusters.
  Output neg = ops::Neg(ipu, pa);
  Output host = ops::Identity(cpu, neg);
  Output square = ops::Square(ipu, host);
  testing::ProfilingSession session(root);
  std::vector<Tensor> out;
  {
    absl::Status call_status = session.Run({{pa, {1.f, 2.f}}}, {square}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  EXPECT_EQ(out[0].DebugString(), "[1. 4.]");
  FetchTrace(session, report);
  {
    absl::Status call_status = session.Run({{pa, {1.f, 2.f}}}, {square}, &out);
    ASSERT_TRUE(call_status.ok()) << call_status;
  }
  IpuTraceEvents events = FetchTrace(session, report);
  std::vector<std::string> loads;
  for (const IpuTraceEvent& e : events.events()) {
    if (e.type() != IpuTraceEvent::LOAD_ENGINE) continue;
    EXPECT_TRUE(e.load_engine().replaced_another_engine());
    loads.push_back(e.module_name());
  }
  EXPECT_EQ(loads, (std::vector<std::string>{"cluster_0", "cluster_1"}));
}

}  // namespace
}  // namespace tensorflow_ipu
