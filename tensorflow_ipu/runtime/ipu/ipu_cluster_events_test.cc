// The events a cluster's compile and runs record, built from a hand-made IR
// and run statistics.
#include "tensorflow_ipu/runtime/ipu/ipu_cluster_events.h"

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace {

// cluster_7(a: float[2], b: int32[3]) -> sum = AddV2(a, a): float[2]
compiler::ClusterIr MakeIr() {
  compiler::ClusterIr ir;
  ir.name = "cluster_7";
  const int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));
  ir.AddArg("b:0", DT_INT32, TensorShape({3}));
  NodeDef def;
  def.set_name("sum");
  def.set_op("AddV2");
  const int sum = ir.AddOp(def, {{a, 0}, {a, 0}}, {DT_FLOAT}, {TensorShape({2})});
  ir.results.push_back({sum, 0});
  return ir;
}

TEST(IpuClusterEventsTest, CompileBeginAndEnd) {
  IpuEventTrace trace;
  const int64_t begin = RecordCompileBegin("cluster_7", 2, &trace);
  RecordCompileEnd("cluster_7", 2, begin, absl::OkStatus(), &trace);
  RecordCompileEnd("cluster_7", 2, begin,
                   absl::ResourceExhaustedError("Out of memory on tile 3"),
                   &trace);
  IpuTraceEvents events = trace.TakeEvents();
  ASSERT_EQ(events.events_size(), 3);
  EXPECT_EQ(events.events(0).type(), IpuTraceEvent::COMPILE_BEGIN);
  EXPECT_EQ(events.events(0).timestamp_us(), begin);
  EXPECT_EQ(events.events(0).ordinal(), 2);
  EXPECT_EQ(events.events(0).module_name(), "cluster_7");
  EXPECT_EQ(events.events(1).type(), IpuTraceEvent::COMPILE_END);
  EXPECT_EQ(events.events(1).compile_end().duration_us(),
            events.events(1).timestamp_us() - begin);
  EXPECT_EQ(events.events(1).compile_end().error(), "");
  EXPECT_NE(events.events(2).compile_end().error().find("Out of memory on tile 3"),
            std::string::npos);
}

TEST(IpuClusterEventsTest, ARunThatLoadedTheEngine) {
  IpuEventTrace trace;
  compiler::ClusterRunStats stats;
  stats.engine_loaded = true;
  stats.engine_switched = true;
  stats.load.bytes = 4096;
  stats.load.seconds = 1e-4;
  stats.run.cycles = 1234;
  stats.run.seconds = 1e-6;
  stats.run.cost.hostBytesToDevice = 20;
  stats.run.cost.hostBytesFromDevice = 8;
  const int64_t begin = TraceNowMicros();
  RecordClusterRun(MakeIr(), 1, stats, begin, &trace);

  IpuTraceEvents events = trace.TakeEvents();
  ASSERT_EQ(events.events_size(), 4);
  const IpuTraceEvent& load = events.events(0);
  const IpuTraceEvent& in = events.events(1);
  const IpuTraceEvent& exec = events.events(2);
  const IpuTraceEvent& out = events.events(3);
  EXPECT_EQ(load.type(), IpuTraceEvent::LOAD_ENGINE);
  EXPECT_EQ(load.load_engine().bytes(), 4096u);
  EXPECT_DOUBLE_EQ(load.load_engine().seconds(), 1e-4);
  EXPECT_TRUE(load.load_engine().replaced_another_engine());

  EXPECT_EQ(in.type(), IpuTraceEvent::HOST_TO_DEVICE_TRANSFER);
  EXPECT_EQ(in.data_transfer().bytes(), 20u);
  ASSERT_EQ(in.data_transfer().tensors_size(), 2);
  EXPECT_EQ(in.data_transfer().tensors(0).name(), "a:0");
  EXPECT_EQ(in.data_transfer().tensors(0).bytes(), 8u);
  EXPECT_EQ(in.data_transfer().tensors(1).name(), "b:0");
  EXPECT_EQ(in.data_transfer().tensors(1).bytes(), 12u);

  EXPECT_EQ(exec.type(), IpuTraceEvent::EXECUTE);
  EXPECT_EQ(exec.execute().cycles(), 1234u);
  EXPECT_DOUBLE_EQ(exec.execute().seconds(), 1e-6);

  EXPECT_EQ(out.type(), IpuTraceEvent::DEVICE_TO_HOST_TRANSFER);
  EXPECT_EQ(out.data_transfer().bytes(), 8u);
  ASSERT_EQ(out.data_transfer().tensors_size(), 1);
  EXPECT_EQ(out.data_transfer().tensors(0).name(), "sum:0");

  for (const IpuTraceEvent& e : events.events()) {
    EXPECT_EQ(e.ordinal(), 1);
    EXPECT_EQ(e.module_name(), "cluster_7");
    EXPECT_GE(e.timestamp_us(), begin);
  }
  EXPECT_EQ(load.timestamp_us(), begin);
  EXPECT_LE(in.timestamp_us(), exec.timestamp_us());
  EXPECT_LE(exec.timestamp_us(), out.timestamp_us());
}

// No load (the engine was on the device) and nothing streamed: only EXECUTE.
TEST(IpuClusterEventsTest, ARunWithoutLoadOrTransfers) {
  IpuEventTrace trace;
  compiler::ClusterIr ir;
  ir.name = "cluster_0";
  compiler::ClusterRunStats stats;
  stats.run.cycles = 10;
  RecordClusterRun(ir, 0, stats, TraceNowMicros(), &trace);
  IpuTraceEvents events = trace.TakeEvents();
  ASSERT_EQ(events.events_size(), 1);
  EXPECT_EQ(events.events(0).type(), IpuTraceEvent::EXECUTE);
  EXPECT_EQ(events.events(0).execute().cycles(), 10u);
}

}  // namespace
}  // namespace tensorflow_ipu
