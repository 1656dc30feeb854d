#include "tensorflow_ipu/runtime/ipu/ipu_cluster_events.h"

#include <algorithm>
#include <vector>

namespace tensorflow_ipu {
namespace {

// The bytes one value of the cluster takes on the host link (0 for values
// that are never streamed: empty tensors, resource handles).
uint64_t StreamedBytes(const compiler::ClusterIr& ir,
                       const compiler::ValueRef& v) {
  return static_cast<uint64_t>(
      std::max<int64_t>(ir.shape(v).num_elements(), 0) *
      DataTypeSize(ir.type(v)));
}

// A transfer event of `bytes` made of `values`, or nothing when no byte
// crossed (a cluster without inputs or results).
void RecordTransfer(IpuTraceEvent::Type type, const compiler::ClusterIr& ir,
                    int ordinal, int64_t timestamp_us, uint64_t bytes,
                    const std::vector<compiler::ValueRef>& values,
                    IpuEventTrace* trace) {
  IpuTraceEvent e = MakeTraceEvent(type, ordinal, ir.name);
  e.set_timestamp_us(timestamp_us);
  IpuTraceEvent::DataTransfer* t = e.mutable_data_transfer();
  t->set_bytes(bytes);
  for (const compiler::ValueRef& v : values) {
    const uint64_t b = StreamedBytes(ir, v);
    if (b == 0) continue;
    IpuTraceEvent::TransferredTensor* tensor = t->add_tensors();
    tensor->set_name(ir.ValueName(v));
    tensor->set_bytes(b);
  }
  if (t->bytes() == 0 && t->tensors_size() == 0) return;
  trace->Record(std::move(e));
}

}  // namespace

int64_t RecordCompileBegin(const std::string& cluster, int ordinal,
                           IpuEventTrace* trace) {
  IpuTraceEvent e = MakeTraceEvent(IpuTraceEvent::COMPILE_BEGIN, ordinal, cluster);
  const int64_t begin = e.timestamp_us();
  trace->Record(std::move(e));
  return begin;
}

void RecordCompileEnd(const std::string& cluster, int ordinal,
                      int64_t begin_us, const absl::Status& status,
                      IpuEventTrace* trace) {
  IpuTraceEvent e = MakeTraceEvent(IpuTraceEvent::COMPILE_END, ordinal, cluster);
  IpuTraceEvent::CompileEnd* end = e.mutable_compile_end();
  end->set_duration_us(std::max<int64_t>(e.timestamp_us() - begin_us, 0));
  if (!status.ok()) end->set_error(status.ToString());
  trace->Record(std::move(e));
}

void RecordClusterRun(const compiler::ClusterIr& ir, int ordinal,
                      const compiler::ClusterRunStats& stats, int64_t begin_us,
                      IpuEventTrace* trace) {
  const int64_t end_us = std::max(TraceNowMicros(), begin_us);
  if (stats.engine_loaded) {
    IpuTraceEvent e = MakeTraceEvent(IpuTraceEvent::LOAD_ENGINE, ordinal, ir.name);
    e.set_timestamp_us(begin_us);
    IpuTraceEvent::LoadEngine* load = e.mutable_load_engine();
    load->set_bytes(stats.load.bytes);
    load->set_seconds(stats.load.seconds);
    load->set_replaced_another_engine(stats.engine_switched);
    trace->Record(std::move(e));
  }
  std::vector<compiler::ValueRef> args;
  for (int op : ir.args) args.push_back({op, 0});
  RecordTransfer(IpuTraceEvent::HOST_TO_DEVICE_TRANSFER, ir, ordinal, begin_us,
                 stats.run.cost.hostBytesToDevice, args, trace);

  IpuTraceEvent e = MakeTraceEvent(IpuTraceEvent::EXECUTE, ordinal, ir.name);
  e.set_timestamp_us(end_us);
  e.mutable_execute()->set_cycles(stats.run.cycles);
  e.mutable_execute()->set_seconds(stats.run.seconds);
  trace->Record(std::move(e));

  RecordTransfer(IpuTraceEvent::DEVICE_TO_HOST_TRANSFER, ir, ordinal, end_us,
                 stats.run.cost.hostBytesFromDevice, ir.results, trace);
}

}  // namespace tensorflow_ipu
