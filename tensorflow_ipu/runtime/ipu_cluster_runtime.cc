#include "tensorflow_ipu/runtime/ipu_cluster_runtime.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/logging.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/runtime/ipu_auto_report.h"
#include "tensorflow_ipu/runtime/ipu_cluster_events.h"
#include "tensorflow_ipu/runtime/ipu_feeds.h"

namespace tensorflow_ipu {
namespace {

}  // namespace

const std::vector<DataType>& ClusterInputGroups() {
  static const auto* groups = new std::vector<DataType>{
      DT_FLOAT, DT_HALF, DT_INT32, DT_INT64, DT_BOOL, DT_UINT8, DT_DOUBLE};
  return *groups;
}

ResultLayout ComputeResultLayout(const compiler::ClusterIr& ir) {
  ResultLayout layout;
  for (const compiler::ValueRef& r : ir.results) {
    layout.total_bytes = (layout.total_bytes + 7) / 8 * 8;
    layout.offsets.push_back(layout.total_bytes);
    layout.total_bytes +=
        std::max<int64_t>(ir.shape(r).num_elements(), 0) * DataTypeSize(ir.type(r));
  }
  return layout;
}

IpuClusterRuntime::IpuClusterRuntime(compiler::ClusterIr ir, int ipu_ordinal,
                                     std::shared_ptr<IpuSessionState> session)
    : ir_(std::move(ir)),
      ipu_ordinal_(ipu_ordinal),
      session_(std::move(session)),
      layout_(ComputeResultLayout(ir_)) {}

absl::StatusOr<compiler::CompiledCluster*> IpuClusterRuntime::GetOrCompile(
    const std::vector<Tensor>& inputs, const poplar_sim::Device& device,
    bool* compiled_now) {
  const poplar_sim::Target& target = device.getTarget();
  std::string signature = absl::StrCat("device ", device.getId(), " ",
                                       target.getNumIPUs(), "x",
                                       target.getTilesPerIPU(), ";");
  for (const Tensor& t : inputs) {
    absl::StrAppend(&signature, DataTypeString(t.dtype()),
                    t.shape().DebugString(), ";");
  }
  absl::MutexLock lock(&mu_);
  auto it = cache_.find(signature);
  if (it != cache_.end()) return it->second.get();
  ASSIGN_OR_RETURN(poplar_sim::OptionFlags engine_options,
                   ClusterEngineOptions(ir_.name));
  const int64_t compile_begin = RecordCompileBegin(ir_.name, ipu_ordinal_);
  absl::StatusOr<std::unique_ptr<compiler::CompiledCluster>> compile_result =
      compiler::CompileCluster(ir_, target, engine_options);
  RecordCompileEnd(ir_.name, ipu_ordinal_, compile_begin,
                   compile_result.status());
  ASSIGN_OR_RETURN(std::unique_ptr<compiler::CompiledCluster> compiled,
                   std::move(compile_result));
  ++num_compilations_;
  *compiled_now = true;
  compiler::CompiledCluster* raw = compiled.get();
  cache_.emplace(std::move(signature), std::move(compiled));
  return raw;
}

absl::Status IpuClusterRuntime::Run(const std::vector<Tensor>& inputs,
                                    Tensor* packed,
                                    poplar_sim::HostThreads* host_threads) {
  ASSIGN_OR_RETURN(poplar_sim::Device device,
                   ipu::IpuSystem::Get().GetDevice(ipu_ordinal_));
  bool compiled_now = false;
  ASSIGN_OR_RETURN(compiler::CompiledCluster * compiled,
                   GetOrCompile(inputs, device, &compiled_now));
  std::vector<Tensor> outputs;
  compiler::ClusterRunStats stats;
  uint64_t loads = 0;
  VariableTransfers transfers;
  {
    absl::MutexLock lock(&IpuDeviceMutex());
    EngineResidency* residency = ResidencyOf(compiled);
    const uint64_t loads_before = device.getNumEngineLoads();
    const int64_t run_begin = TraceNowMicros();
    ASSIGN_OR_RETURN(transfers,
                     residency->PrepareRun(device, *session_->resources));
    // Each loop's infeed elements go in as one buffer of records, and its
    // outfeed records come back as one, for the whole run.
    std::map<std::string, std::vector<std::vector<Tensor>>> infeed_records;
    for (int k = 0; k < static_cast<int>(compiled->infeeds().size()); ++k) {
      const compiler::FeedBinding& b = compiled->infeeds()[k];
      auto it = infeed_records.find(b.feed_name);
      if (it == infeed_records.end()) {
        ASSIGN_OR_RETURN(std::vector<std::vector<Tensor>> records,
                         InfeedRegistry::Get().Take(b.feed_name, b.records_per_run));
        it = infeed_records.emplace(b.feed_name, std::move(records)).first;
      }
      if (b.index >= static_cast<int>(it->second.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Infeed '", b.feed_name, "' has ", it->second.size(),
            " components; cluster ", ir_.name, " reads component ", b.index));
      }
      RETURN_IF_ERROR(compiled->ConnectInfeed(k, it->second[b.index]));
    }
    std::vector<Tensor> outfeed_records;
    for (int k = 0; k < static_cast<int>(compiled->outfeeds().size()); ++k) {
      ASSIGN_OR_RETURN(Tensor records, compiled->ConnectOutfeed(k));
      outfeed_records.push_back(std::move(records));
    }
    ASSIGN_OR_RETURN(stats, compiled->Run(device, inputs, &outputs, host_threads));
    residency->FinishRun();
    std::map<std::string, std::vector<Tensor>> by_feed;
    for (int k = 0; k < static_cast<int>(outfeed_records.size()); ++k) {
      const compiler::FeedBinding& b = compiled->outfeeds()[k];
      std::vector<Tensor>& components = by_feed[b.feed_name];
      if (components.size() <= static_cast<size_t>(b.index)) {
        components.resize(b.index + 1);
      }
      components[b.index] = std::move(outfeed_records[k]);
    }
    for (auto& [name, components] : by_feed) {
      OutfeedRegistry::Get().Append(name, std::move(components));
    }
    RecordClusterRun(ir_, ipu_ordinal_, stats, run_begin);
    loads = device.getNumEngineLoads() - loads_before;
  }
  if (transfers.reloaded && !session_->warned_engine_switch.exchange(true)) {
    TFIPU_LOG(WARNING)
        << "Engine switch on /device:IPU:" << ipu_ordinal_ << ": cluster "
        << ir_.name << " replaced " << transfers.outgoing_cluster
        << " on the device, and the two keep alternating. The device holds "
           "one executable at a time, so every switch reloads code and "
           "constants and moves resident variables over the host link. "
        << (transfers.involves_global_step
                ? "The variable global_step is updated on the IPU by a "
                  "separate executable: create it under the CPU device "
                  "before building the IPU graph "
                  "(train::get_or_create_global_step(root.WithDevice(\"cpu\")))"
                : "Put the alternating ops into one cluster (one compile "
                  "call) or on the host")
        << " (reported once per session)";
  }

  ASSIGN_OR_RETURN(*packed,
                   Tensor::Create(DT_UINT8, TensorShape({layout_.total_bytes})));
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k].TotalBytes() == 0) continue;
    std::memcpy(packed->data<uint8_t>() + layout_.offsets[k],
                outputs[k].raw_data(), outputs[k].TotalBytes());
  }

  IpuClusterProfile p;
  p.cluster = ir_.name;
  p.ipu_ordinal = ipu_ordinal_;
  p.num_ipus = static_cast<int>(device.getTarget().getNumIPUs());
  p.cycles = stats.run.cycles;
  p.seconds = stats.run.seconds;
  p.compute_cycles = stats.run.cost.computeCycles;
  p.exchange_cycles = stats.run.cost.exchangeCycles;
  p.inter_ipu_cycles = stats.run.cost.interIpuCycles;
  p.inter_ipu_bytes = stats.run.cost.interIpuBytes;
  p.host_bytes_to_device = stats.run.cost.hostBytesToDevice;
  p.host_bytes_from_device = stats.run.cost.hostBytesFromDevice;
  p.engine_loads = loads;
  p.engine_switched = stats.engine_switched;
  p.load_seconds = stats.engine_loaded ? stats.load.seconds : 0;
  p.variable_bytes_saved = transfers.bytes_saved;
  p.variable_bytes_restored = transfers.bytes_restored;
  p.variable_seconds = transfers.seconds;
  p.compiled = compiled_now;
  p.max_tile_bytes = compiled->max_tile_bytes();
  p.tiles_used = compiled->tiles_used();
  absl::MutexLock lock(&mu_);
  last_ = std::move(p);
  return absl::OkStatus();
}

EngineResidency* IpuClusterRuntime::ResidencyOf(
    compiler::CompiledCluster* compiled) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<EngineResidency>& r = residencies_[compiled];
  if (r == nullptr) r = std::make_unique<EngineResidency>(compiled, ir_.name);
  return r.get();
}

std::optional<IpuClusterProfile> IpuClusterRuntime::TakeLastProfile() {
  absl::MutexLock lock(&mu_);
  std::optional<IpuClusterProfile> p = std::move(last_);
  last_.reset();
  return p;
}

int IpuClusterRuntime::num_compilations() const {
  absl::MutexLock lock(&mu_);
  return num_compilations_;
}

IpuClusterTable& IpuClusterTable::Get() {
  static IpuClusterTable* table = new IpuClusterTable;
  return *table;
}

int64_t IpuClusterTable::Register(std::shared_ptr<IpuClusterRuntime> runtime) {
  absl::MutexLock lock(&mu_);
  const int64_t key = next_key_++;
  runtimes_[key] = std::move(runtime);
  return key;
}

void IpuClusterTable::Unregister(int64_t key) {
  absl::MutexLock lock(&mu_);
  runtimes_.erase(key);
}

absl::StatusOr<std::shared_ptr<IpuClusterRuntime>> IpuClusterTable::Find(
    int64_t key) const {
  absl::MutexLock lock(&mu_);
  auto it = runtimes_.find(key);
  if (it == runtimes_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "No IPU cluster with key ", key,
        "; the session that partitioned this graph is gone"));
  }
  return it->second;
}

IpuClusterRegistration::~IpuClusterRegistration() {
  for (int64_t key : keys_) IpuClusterTable::Get().Unregister(key);
}

int64_t IpuClusterRegistration::Add(std::shared_ptr<IpuClusterRuntime> runtime) {
  runtimes_.push_back(runtime);
  const int64_t key = IpuClusterTable::Get().Register(std::move(runtime));
  keys_.push_back(key);
  return key;
}

}  // namespace tensorflow_ipu
