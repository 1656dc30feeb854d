#include "tensorflow_ipu/runtime/ipu/compile_cache.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/compiler/tensor_tile_mapping.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu/ipu_auto_report.h"
#include "tensorflow_ipu/runtime/ipu/ipu_cluster_events.h"
#include "tensorflow_ipu/runtime/ipu/ipu_trace_reports.h"

namespace tensorflow_ipu {

absl::StatusOr<std::shared_ptr<IpuCompileCache>> IpuCompileCache::Of(
    ResourceManager* resources) {
  if (resources == nullptr) {
    return absl::FailedPreconditionError(
        "IPU clusters run only inside a session (no resource manager)");
  }
  return resources->LookupOrCreate<IpuCompileCache>(
      "_ipu", "compile_cache", [] { return std::make_shared<IpuCompileCache>(); });
}

absl::StatusOr<IpuCompileCache::Entry*> IpuCompileCache::GetOrCompile(
    const IpuClusterDef& def, const device::IpuDeviceHandle& device,
    const std::vector<Tensor>& inputs, bool* compiled_now,
    poplar_sim::HostThreads* threads) {
  const poplar_sim::Target& target = device.device().getTarget();
  absl::MutexLock lock(&mu_);
  // The same fields as the key below, compared one by one.
  auto same_as_recent = [&] {
    if (recent_.entry == nullptr || recent_.cluster != def.ir.name ||
        recent_.generation != device.generation() ||
        recent_.device_id != device.device().getId() ||
        recent_.ipus != target.getNumIPUs() ||
        recent_.tiles_per_ipu != target.getTilesPerIPU() ||
        recent_.inputs.size() != inputs.size()) {
      return false;
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (recent_.inputs[k].first != inputs[k].dtype() ||
          recent_.inputs[k].second != inputs[k].shape()) {
        return false;
      }
    }
    return true;
  };
  if (same_as_recent()) return recent_.entry;
  auto remember = [&](Entry* entry) {
    recent_.cluster = def.ir.name;
    recent_.generation = device.generation();
    recent_.device_id = device.device().getId();
    recent_.ipus = target.getNumIPUs();
    recent_.tiles_per_ipu = target.getTilesPerIPU();
    recent_.inputs.clear();
    for (const Tensor& t : inputs) recent_.inputs.emplace_back(t.dtype(), t.shape());
    recent_.entry = entry;
    return entry;
  };
  std::string key = absl::StrCat(def.ir.name, "; generation ",
                                 device.generation(), "; device ",
                                 device.device().getId(), " ",
                                 target.getNumIPUs(), "x",
                                 target.getTilesPerIPU(), ";");
  for (const Tensor& t : inputs) {
    absl::StrAppend(&key, DataTypeString(t.dtype()), t.shape().DebugString(),
                    ";");
  }
  auto it = entries_.find(key);
  if (it != entries_.end()) return remember(it->second.get());
  // The configuration's options travel with its devices.
  const device::IpuDeviceOptions& configured = device.options();
  const IpuTraceOptions trace = IpuEventTrace::Global().options();
  poplar_sim::OptionFlags requested = configured.compilation_options;
  // IPUConfig.profiling.report_directory asks for reports there, as if
  // POPLAR_ENGINE_OPTIONS asked for autoReport.all (which still wins),
  // unless the Poplar options already name a directory.
  if (!trace.report_directory.empty() && !requested.has("autoReport.directory")) {
    requested.set("autoReport.all", "true");
    requested.set("autoReport.directory", trace.report_directory);
  }
  compiler::CompileOptions options;
  ASSIGN_OR_RETURN(options.engine_options, ClusterEngineOptions(def.ir.name, requested));
  options.ipu_order = configured.ipu_order;
  options.matmul_options = configured.matmul_options;
  options.convolution_options = configured.convolution_options;
  options.cross_replica_sum_buffer_bytes = configured.cross_replica_sum_buffer_bytes;
  options.collect_tensor_map = trace.enabled;
  options.host_threads = threads;
  const double compile_begin = RecordCompileBegin(def.ir.name, def.ipu_ordinal);
  compiler::ClusterIr ir = def.ir;
  ir.process_count = std::max(1, configured.process_count);
  absl::StatusOr<std::unique_ptr<compiler::CompiledCluster>> compiled =
      compiler::CompileCluster(std::move(ir), target, options);
  std::string report;
  if (compiled.ok() && trace.enabled && trace.compilation_report) {
    report = ClusterReport((*compiled)->engine(), options.engine_options, trace);
  }
  std::string tensor_map;
  if (compiled.ok() && trace.enabled) {
    tensor_map = compiler::TensorMapJson(def.ir.name, (*compiled)->tensor_map());
  }
  RecordCompileEnd(def.ir.name, def.ipu_ordinal, compile_begin,
                   compiled.status(), report, tensor_map);
  if (!compiled.ok()) return compiled.status();
  // A process of a multi-replica distribution runs its share of the
  // replicas of the global program.
  RETURN_IF_ERROR((*compiled)->DistributeReplicas(configured.process_count,
                                                  configured.process_index, configured.exchange,
                                                  configured.host_network));
  auto entry = std::make_unique<Entry>();
  entry->compiled = *std::move(compiled);
  entry->engine_options = std::move(options.engine_options);
  entry->residency = std::make_unique<EngineResidency>(entry->compiled.get(),
                                                       def.ir.name, device);
  ++num_compilations_;
  *compiled_now = true;
  Entry* raw = entry.get();
  entries_.emplace(std::move(key), std::move(entry));
  return remember(raw);
}

int IpuCompileCache::num_compilations() const {
  absl::MutexLock lock(&mu_);
  return num_compilations_;
}

}  // namespace tensorflow_ipu
