#include "tensorflow_ipu/runtime/ipu/ipu_cluster_events.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

namespace tensorflow_ipu {

double RecordCompileBegin(const std::string& cluster, int ordinal,
                          IpuEventTrace* trace) {
  IpuTraceEvent e = MakeTraceEvent(IpuTraceEvent::COMPILE_BEGIN, ordinal, cluster);
  const double begin = e.timestamp();
  trace->Record(std::move(e));
  return begin;
}

void RecordCompileEnd(const std::string& cluster, int ordinal, double begin,
                      const absl::Status& status,
                      const std::string& compilation_report,
                      const std::string& tensor_map, IpuEventTrace* trace) {
  IpuTraceEvent e = MakeTraceEvent(IpuTraceEvent::COMPILE_END, ordinal, cluster);
  IpuTraceEvent::CompileEnd* end = e.mutable_compile_end();
  end->set_duration(std::max<int64_t>(
      static_cast<int64_t>((e.timestamp() - begin) * 1e6), 0));
  if (!status.ok()) end->set_error(status.ToString());
  end->set_compilation_report(compilation_report);
  end->set_tensor_map(tensor_map);
  trace->Record(std::move(e));
}

void RecordVariableTransfer(IpuTraceEvent::Type type, int ordinal,
                            const std::vector<MovedVariable>& moved,
                            double timestamp, IpuEventTrace* trace) {
  std::vector<std::string> clusters;
  for (const MovedVariable& v : moved) {
    if (std::find(clusters.begin(), clusters.end(), v.cluster) ==
        clusters.end()) {
      clusters.push_back(v.cluster);
    }
  }
  for (const std::string& cluster : clusters) {
    IpuTraceEvent e = MakeTraceEvent(type, ordinal, cluster);
    if (timestamp > 0) e.set_timestamp(timestamp);
    IpuTraceEvent::DataTransfer* t = e.mutable_data_transfer();
    nlohmann::json json = {{"tensors", nlohmann::json::array()}};
    uint64_t total = 0;
    for (const MovedVariable& v : moved) {
      if (v.cluster != cluster) continue;
      IpuTraceEvent::TransferredTensor* tensor = t->add_tensors();
      tensor->set_name(v.name);
      tensor->set_size(v.bytes);
      json["tensors"].push_back({{"name", v.name}, {"size", v.bytes}});
      total += v.bytes;
    }
    json["total_size"] = total;
    t->set_total_size(total);
    t->set_data_transfer(json.dump());
    trace->Record(std::move(e));
  }
}

void RecordClusterRun(const std::string& cluster, int ordinal,
                      const compiler::ClusterRunStats& stats,
                      const std::vector<MovedVariable>& saved,
                      const std::vector<MovedVariable>& restored, double begin,
                      const std::string& execution_report,
                      IpuEventTrace* trace) {
  // Every run comes here; a trace nobody enabled would drop each event
  // after it was built (a few protobufs and a clock read a step).
  if (!trace->enabled()) return;
  const double end = std::max(TraceNowSeconds(), begin);
  RecordVariableTransfer(IpuTraceEvent::DEVICE_TO_HOST_TRANSFER, ordinal, saved,
                         begin, trace);
  if (stats.engine_loaded) {
    IpuTraceEvent e = MakeTraceEvent(IpuTraceEvent::LOAD_ENGINE, ordinal, cluster);
    e.set_timestamp(begin);
    IpuTraceEvent::LoadEngine* load = e.mutable_load_engine();
    load->set_bytes(stats.load.bytes);
    load->set_seconds(stats.load.seconds);
    load->set_replaced_another_engine(stats.engine_switched);
    trace->Record(std::move(e));
  }
  RecordVariableTransfer(IpuTraceEvent::HOST_TO_DEVICE_TRANSFER, ordinal,
                         restored, begin, trace);
  IpuTraceEvent e = MakeTraceEvent(IpuTraceEvent::EXECUTE, ordinal, cluster);
  e.set_timestamp(end);
  e.mutable_execute()->set_cycles(stats.run.cycles);
  e.mutable_execute()->set_seconds(stats.run.seconds);
  e.mutable_execute()->set_execution_report(execution_report);
  trace->Record(std::move(e));
}

}  // namespace tensorflow_ipu
