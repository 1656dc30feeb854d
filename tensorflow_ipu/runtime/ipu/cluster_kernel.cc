// The kernel of "_IpuCluster" (runtime/ipu_cluster_op.h): runs one IPU
// cluster of a partitioned run on its simulated device.
//
// Each run finds the device (device/ipu_devices.h), the cluster's executable
// in the session's compile cache (compiling it the first time), and then,
// holding the device's lock: moves the cluster's variables where they must
// be (EngineResidency), connects the loops' infeeds and outfeeds, runs the
// engine, and records the events. The engine's results become the kernel's
// outputs as they are: nothing is packed or copied again. What the run cost
// goes to the Run's RunMetadata.
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/logging.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu/compile_cache.h"
#include "tensorflow_ipu/runtime/ipu/ipu_cluster_events.h"
#include "tensorflow_ipu/runtime/ipu/ipu_trace_reports.h"
#include "tensorflow_ipu/runtime/ipu/pool_host_threads.h"
#include "tensorflow_ipu/runtime/ipu_cluster_op.h"
#include "tensorflow_ipu/runtime/ipu_event_trace.h"
#include "tensorflow_ipu/runtime/ipu_feeds.h"

namespace tensorflow_ipu {
namespace {

// What one run of the engine did, for the profile and the warning.
struct EngineRun {
  compiler::ClusterRunStats stats;
  VariableTransfers transfers;
  uint64_t loads = 0;
  std::vector<Tensor> outputs;
};

class IpuClusterKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(std::string name,
                     ctx->GetAttr<std::string>(kIpuClusterNameAttr));
    ASSIGN_OR_RETURN(std::shared_ptr<IpuClusterLibrary> library,
                     IpuClusterLibrary::Of(ctx->resources()));
    ASSIGN_OR_RETURN(def_, library->Find(name));
    ASSIGN_OR_RETURN(cache_, IpuCompileCache::Of(ctx->resources()));
    resources_ = ctx->resources();
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> inputs;
    inputs.reserve(ctx->num_inputs());
    for (int i = 0; i < ctx->num_inputs(); ++i) inputs.push_back(ctx->input(i));
    ASSIGN_OR_RETURN(device::IpuDeviceHandle device,
                     device::IpuDevices::Global().Get(def_->ipu_ordinal));
    bool compiled_now = false;
    PoolHostThreads threads(ctx->eigen_device());
    ASSIGN_OR_RETURN(IpuCompileCache::Entry * entry,
                     cache_->GetOrCompile(*def_, device, inputs, &compiled_now, &threads));
    ASSIGN_OR_RETURN(EngineRun run,
                     RunEngine(device, *entry, inputs, &threads, ctx->deadline()));
    if (run.transfers.reloaded && cache_->FirstEngineSwitch()) {
      WarnEngineSwitch(run.transfers);
    }
    if (static_cast<int>(run.outputs.size()) != ctx->num_outputs()) {
      return absl::InternalError(absl::StrCat(
          "IPU cluster ", def_->ir.name, " returned ", run.outputs.size(),
          " results for ", ctx->num_outputs(), " outputs"));
    }
    for (int k = 0; k < ctx->num_outputs(); ++k) {
      ctx->set_output(k, std::move(run.outputs[k]));
    }
    if (ctx->run_collector() != nullptr) {
      ctx->run_collector()->AddIpuCluster(
          Profile(device, *entry->compiled, run, compiled_now));
    }
    return absl::OkStatus();
  }

 private:
  absl::StatusOr<EngineRun> RunEngine(const device::IpuDeviceHandle& device,
                                      IpuCompileCache::Entry& entry,
                                      const std::vector<Tensor>& inputs,
                                      poplar_sim::HostThreads* threads,
                                      absl::Time deadline) {
    compiler::CompiledCluster& compiled = *entry.compiled;
    EngineRun run;
    // What earlier attempts moved before finding a variable elsewhere.
    std::vector<MovedVariable> saved, restored;
    for (;;) {
      std::vector<std::shared_ptr<Var>> elsewhere;
      {
        absl::MutexLock lock(device.mutex());
        // Attaches a device configured to attach on demand; refuses to run
        // on one configured to compile only.
        RETURN_IF_ERROR(device.PrepareToRun());
        const uint64_t loads_before = device.device().getNumEngineLoads();
        const double run_begin = TraceNowSeconds();
        ASSIGN_OR_RETURN(run.transfers,
                         entry.residency->PrepareRun(*resources_, &elsewhere));
        saved.insert(saved.end(), run.transfers.saved.begin(),
                     run.transfers.saved.end());
        restored.insert(restored.end(), run.transfers.restored.begin(),
                        run.transfers.restored.end());
        if (elsewhere.empty()) {
          RETURN_IF_ERROR(RunLocked(device, compiled, inputs, threads, deadline, &run));
          entry.residency->FinishRun();
          const IpuTraceOptions trace = IpuEventTrace::Global().options();
          std::string report;
          if (trace.enabled && ReportsExecution(entry.executions, trace)) {
            report = ClusterReport(compiled.engine(), entry.engine_options, trace);
          }
          ++entry.executions;
          RecordClusterRun(def_->ir.name, def_->ipu_ordinal, run.stats, saved,
                           restored, run_begin, report);
          run.loads = device.device().getNumEngineLoads() - loads_before;
          return run;
        }
      }
      // Variables held by an engine on another device come home without
      // this device's lock (see ipu_variable_residency.h).
      for (const std::shared_ptr<Var>& var : elsewhere) {
        RETURN_IF_ERROR(var->EnsureOnHost());
      }
    }
  }

  // Streams, runs and collects; the device's lock is held.
  absl::Status RunLocked(const device::IpuDeviceHandle& device,
                         compiler::CompiledCluster& compiled,
                         const std::vector<Tensor>& inputs,
                         poplar_sim::HostThreads* threads, absl::Time deadline,
                         EngineRun* run) {
    // Each loop's infeed elements go in as one buffer of records, and its
    // outfeed records come back as one, for the whole run. R replicas take
    // R times the records (each its own batches) and send back R each.
    const int64_t replicas = compiled.replication_factor();
    std::map<std::string, std::vector<std::vector<Tensor>>> infeed_records;
    for (int k = 0; k < static_cast<int>(compiled.infeeds().size()); ++k) {
      const compiler::FeedBinding& b = compiled.infeeds()[k];
      auto it = infeed_records.find(b.feed_name);
      if (it == infeed_records.end()) {
        ASSIGN_OR_RETURN(std::vector<std::vector<Tensor>> records,
                         InfeedRegistry::Get().Take(b.feed_name, b.records_per_run * replicas));
        it = infeed_records.emplace(b.feed_name, std::move(records)).first;
      }
      if (b.index >= static_cast<int>(it->second.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Infeed '", b.feed_name, "' has ", it->second.size(),
            " components; cluster ", def_->ir.name, " reads component ",
            b.index));
      }
      RETURN_IF_ERROR(compiled.ConnectInfeed(k, it->second[b.index]));
    }
    std::vector<std::vector<Tensor>> outfeed_records;
    for (int k = 0; k < static_cast<int>(compiled.outfeeds().size()); ++k) {
      ASSIGN_OR_RETURN(std::vector<Tensor> records, compiled.ConnectOutfeed(k));
      outfeed_records.push_back(std::move(records));
    }
    ASSIGN_OR_RETURN(run->stats, compiled.Run(device.device(), inputs,
                                              &run->outputs, threads, deadline));
    std::map<std::string, std::vector<Tensor>> by_feed;
    for (int k = 0; k < static_cast<int>(outfeed_records.size()); ++k) {
      const compiler::FeedBinding& b = compiled.outfeeds()[k];
      std::vector<Tensor>& components = by_feed[b.feed_name];
      if (components.size() <= static_cast<size_t>(b.index)) {
        components.resize(b.index + 1);
      }
      ASSIGN_OR_RETURN(components[b.index],
                       compiler::CompiledCluster::StackReplicas(outfeed_records[k]));
    }
    for (auto& [name, components] : by_feed) {
      OutfeedRegistry::Get().Append(name, std::move(components));
    }
    return absl::OkStatus();
  }

  void WarnEngineSwitch(const VariableTransfers& t) const {
    TFIPU_LOG(WARNING)
        << "Engine switch on /device:IPU:" << def_->ipu_ordinal << ": cluster "
        << def_->ir.name << " replaced " << t.outgoing_cluster
        << " on the device, and the two keep alternating. The device holds "
           "one executable at a time, so every switch reloads code and "
           "constants and moves resident variables over the host link. "
        << (t.involves_global_step
                ? "The variable global_step is updated on the IPU by a "
                  "separate executable: create it under the CPU device "
                  "before building the IPU graph "
                  "(train::get_or_create_global_step(root.WithDevice(\"cpu\")))"
                : "Put the alternating ops into one cluster (one compile "
                  "call) or on the host")
        << " (reported once per session)";
  }

  IpuClusterProfile Profile(const device::IpuDeviceHandle& device,
                            const compiler::CompiledCluster& compiled,
                            const EngineRun& run, bool compiled_now) const {
    const poplar_sim::RunStats& stats = run.stats.run;
    IpuClusterProfile p;
    p.cluster = def_->ir.name;
    p.ipu_ordinal = def_->ipu_ordinal;
    p.num_ipus = static_cast<int>(device.device().getTarget().getNumIPUs());
    p.replicas = compiled.replication_factor();
    p.cycles = stats.cycles;
    p.seconds = stats.seconds;
    p.compute_cycles = stats.cost.computeCycles;
    p.exchange_cycles = stats.cost.exchangeCycles;
    p.inter_ipu_cycles = stats.cost.interIpuCycles;
    p.inter_ipu_bytes = stats.cost.interIpuBytes;
    p.host_bytes_to_device = stats.cost.hostBytesToDevice;
    p.host_bytes_from_device = stats.cost.hostBytesFromDevice;
    p.engine_loads = run.loads;
    p.engine_switched = run.stats.engine_switched;
    p.load_seconds = run.stats.engine_loaded ? run.stats.load.seconds : 0;
    p.variable_bytes_saved = run.transfers.bytes_saved;
    p.variable_bytes_restored = run.transfers.bytes_restored;
    p.variable_seconds = run.transfers.seconds;
    p.compiled = compiled_now;
    p.max_tile_bytes = compiled.max_tile_bytes();
    p.tiles_used = compiled.tiles_used();
    return p;
  }

  std::shared_ptr<const IpuClusterDef> def_;
  std::shared_ptr<IpuCompileCache> cache_;
  ResourceManager* resources_ = nullptr;
};
REGISTER_KERNEL(kIpuClusterOp, kDeviceTypeCpu, IpuClusterKernel);

}  // namespace
}  // namespace tensorflow_ipu
