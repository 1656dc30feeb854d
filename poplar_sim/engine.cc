#include "poplar_sim/engine.h"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "poplar_sim/engine_internal.h"
#include "poplar_sim/program_check.h"
#include "poplar_sim/status_macros.h"

namespace poplar_sim {
namespace {

uint64_t NextEngineId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

bool WantsReports(const EngineOptions& o) {
  return o.autoReportAll || o.autoReportExecution || o.autoReportGraph;
}

}  // namespace

Engine::Engine(std::unique_ptr<internal::EngineImpl> impl)
    : impl_(std::move(impl)) {}
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;
Engine::~Engine() = default;

absl::StatusOr<Engine> Engine::create(
    const Graph& graph, const std::vector<program::Program>& programs,
    const OptionFlags& options, const std::vector<std::string>& programNames,
    HostThreads* compileThreads) {
  // First, before anything else can fail: it also cuts the cycles it finds,
  // so that their nodes can be freed.
  POPLAR_SIM_RETURN_IF_ERROR(internal::checkPrograms(programs));
  auto impl = std::make_unique<internal::EngineImpl>();
  POPLAR_SIM_ASSIGN_OR_RETURN(impl->options, resolveEngineOptions(options));
  impl->id = NextEngineId();
  impl->graph = graph.state();
  absl::Status s = impl->compile(programs, programNames, compileThreads);
  if (!s.ok()) {
    // A report of a graph that does not fit is what one needs to fix it.
    if (s.code() == absl::StatusCode::kResourceExhausted &&
        WantsReports(impl->options)) {
      Engine failed(std::move(impl));
      (void)failed.writeReports(failed.impl_->options.reportDirectory());
    }
    return s;
  }
  Engine engine(std::move(impl));
  if (WantsReports(engine.impl_->options)) {
    POPLAR_SIM_RETURN_IF_ERROR(
        engine.writeReports(engine.impl_->options.reportDirectory()));
  }
  return engine;
}

absl::StatusOr<Engine> Engine::create(const Graph& graph,
                                      const program::Program& program,
                                      const OptionFlags& options,
                                      HostThreads* compileThreads) {
  return create(graph, std::vector<program::Program>{program}, options, {}, compileThreads);
}

absl::Status Engine::load(Device& device) {
  if (!device.valid()) {
    return absl::InvalidArgumentError("Engine::load: empty Device handle");
  }
  if (!device.isAttached()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Engine::load: device ", device.getId(),
        " is not attached; call Device::attach first"));
  }
  const Target& d = device.getTarget();
  const Target& e = impl_->deviceTarget;
  if (d.getTargetArchString() != e.getTargetArchString() ||
      d.getNumIPUs() != e.getNumIPUs() ||
      d.getTilesPerIPU() != e.getTilesPerIPU()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Engine::load: the engine was compiled for ", e.getNumIPUs(), " ",
        e.getTargetArchString(), " IPU(s) of ", e.getTilesPerIPU(),
        " tiles but device ", device.getId(), " has ", d.getNumIPUs(), " ",
        d.getTargetArchString(), " IPU(s) of ", d.getTilesPerIPU(), " tiles"));
  }
  impl_->device = device;
  impl_->loaded = true;
  device.recordEngineLoad(impl_->id);
  return absl::OkStatus();
}

absl::Status Engine::run(unsigned programIndex, const std::string& debugName) {
  internal::EngineImpl& e = *impl_;
  if (programIndex >= e.roots.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Engine::run: program ", programIndex, " does not exist; the engine has ",
        e.roots.size(), " program(s)"));
  }
  if (!e.loaded) {
    return absl::FailedPreconditionError(
        "Engine::run: the engine is not loaded; call Engine::load(device)");
  }
  if (!e.device.isAttached()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Engine::run: device ", e.device.getId(),
        " was detached; attach it and load the engine again"));
  }
  if (e.device.loadedEngineId() != e.id) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Engine::run: device ", e.device.getId(), " now holds engine ",
        e.device.loadedEngineId(), ", not engine ", e.id,
        "; call Engine::load(device) again (an engine switch)"));
  }
  absl::Status s = e.runProgram(programIndex, debugName);
  if (WantsReports(e.options)) {
    absl::Status r = writeReports(e.options.reportDirectory());
    if (s.ok()) s = r;
  }
  return s;
}

namespace {

// The size of host buffer [begin, end), or InvalidArgument naming `what`
// if a pointer is null or the range is backwards. Compared as integers:
// subtracting pointers into different buffers is undefined.
absl::StatusOr<size_t> HostRangeBytes(const std::string& what, const void* begin,
                                      const void* end) {
  // Both null is an empty buffer (an empty std::vector's data()); the
  // caller's size check decides whether empty is right.
  if (begin == nullptr && end == nullptr) return size_t{0};
  if (begin == nullptr || end == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the buffer's ", begin == nullptr ? "begin" : "end",
        " pointer is null; give a host buffer that stays valid while runs use it"));
  }
  const uintptr_t b = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t e = reinterpret_cast<uintptr_t>(end);
  if (e < b) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the buffer ends ", b - e,
        " bytes before it begins (begin and end swapped?)"));
  }
  return static_cast<size_t>(e - b);
}

}  // namespace

namespace {

constexpr int kAllReplicas = -1;

// The connection of stream `id` on `replica`.
internal::StreamConnection& ConnectionOf(internal::EngineImpl& e, unsigned replica,
                                         unsigned id) {
  return e.memory[replica].streams[id];
}

// Gives stream `id` connection `c` on `replica`, or on every replica: a
// host-to-device stream then feeds each replica from the same host data
// (each replica keeps its own position in it), and a device-to-host stream
// takes replica 0's records while the other replicas' are discarded (as
// replicated reads take replica 0).
void SetConnection(internal::EngineImpl& e, unsigned id, int replica,
                   const internal::StreamConnection& c) {
  if (replica != kAllReplicas) {
    ConnectionOf(e, static_cast<unsigned>(replica), id) = c;
    return;
  }
  const bool toHost = e.graph->streams[id].direction == StreamDirection::DEVICE_TO_HOST;
  for (unsigned r = 0; r < e.replicationFactor; ++r) {
    internal::StreamConnection& target = ConnectionOf(e, r, id);
    target = c;
    if (toHost && r > 0) {
      target = internal::StreamConnection();
      target.mode = internal::StreamConnection::Mode::DISCARD;
    }
  }
}

absl::Status CheckReplica(const internal::EngineImpl& e, const std::string& what,
                          unsigned replica) {
  if (replica < e.replicationFactor) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, ": replica ", replica, " does not exist; the engine's graph has ",
      e.replicationFactor, " replica(s), 0 to ", e.replicationFactor - 1));
}

absl::Status ConnectBuffer(internal::EngineImpl& e, const std::string& handle,
                           int replica, void* begin, void* end) {
  auto it = e.graph->streamByHandle.find(handle);
  if (it == e.graph->streamByHandle.end()) {
    return absl::NotFoundError(absl::StrCat(
        "connectStream: no stream called '", handle, "' in the graph"));
  }
  if (replica != kAllReplicas) {
    POPLAR_SIM_RETURN_IF_ERROR(CheckReplica(e, absl::StrCat("connectStream '", handle, "'"),
                                            static_cast<unsigned>(replica)));
  }
  const DataStream& s = e.graph->streams[it->second];
  const size_t record = s.numElements * typeSize(s.type);
  POPLAR_SIM_ASSIGN_OR_RETURN(
      const size_t bytes,
      HostRangeBytes(absl::StrCat("connectStream '", handle, "'"), begin, end));
  if (record == 0 || bytes == 0 || bytes % record != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "connectStream '", handle, "': a buffer of ", bytes,
        " bytes does not hold a whole number (>= 1) of records of ", record,
        " bytes (", s.numElements, " x ", typeName(s.type), ")"));
  }
  internal::StreamConnection c;
  c.mode = internal::StreamConnection::Mode::BUFFER;
  c.begin = static_cast<char*>(begin);
  c.numRecords = bytes / record;
  c.next = 0;
  SetConnection(e, it->second, replica, c);
  return absl::OkStatus();
}

}  // namespace

absl::Status Engine::connectStream(const std::string& handle, void* begin,
                                   void* end) {
  return ConnectBuffer(*impl_, handle, kAllReplicas, begin, end);
}

absl::Status Engine::connectStream(const std::string& handle, unsigned replica,
                                   void* begin, void* end) {
  return ConnectBuffer(*impl_, handle, static_cast<int>(replica), begin, end);
}

unsigned Engine::getReplicationFactor() const { return impl_->replicationFactor; }

absl::Status Engine::setRuntimeReplicaSubset(RuntimeReplicaSubset subset) {
  internal::EngineImpl& e = *impl_;
  if (subset.globalReplicationFactor != 0) {
    if (subset.firstReplica + e.replicationFactor > subset.globalReplicationFactor) {
      return absl::InvalidArgumentError(absl::StrCat(
          "setRuntimeReplicaSubset: the engine's ", e.replicationFactor,
          " replicas from replica ", subset.firstReplica, " do not fit in the job's ",
          subset.globalReplicationFactor, " replicas"));
    }
    if (subset.globalReplicationFactor > e.replicationFactor && subset.exchange == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "setRuntimeReplicaSubset: ", subset.globalReplicationFactor - e.replicationFactor,
          " replicas run elsewhere but no CrossInstanceExchange reaches them"));
    }
    const HostNetwork& net = subset.network;
    if (!(net.bytesPerSecond > 0) || !std::isfinite(net.bytesPerSecond) ||
        !(net.latencySeconds >= 0) || !std::isfinite(net.latencySeconds)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "setRuntimeReplicaSubset: the host network's bandwidth must be a positive "
          "number of bytes per second and its latency a non-negative number of "
          "seconds, not ", net.bytesPerSecond, " B/s and ", net.latencySeconds, " s"));
    }
    for (const internal::CompiledStep& step : e.steps) {
      if (step.kind != internal::Kind::CROSS_REPLICA_REDUCE) continue;
      const unsigned group = step.node->replicaGroupSize;
      if (group != 0 && subset.globalReplicationFactor % group != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "setRuntimeReplicaSubset: CrossReplicaReduce '", step.node->debugName,
            "' has replica groups of ", group, ", which do not divide the job's ",
            subset.globalReplicationFactor, " replicas"));
      }
    }
  } else {
    subset = RuntimeReplicaSubset{};
  }
  e.replicaSubset = std::move(subset);
  e.writeReplicationIndices();
  e.costNetworkSteps();
  return absl::OkStatus();
}

absl::Status Engine::connectStream(const std::string& handle, void* buffer) {
  auto it = impl_->graph->streamByHandle.find(handle);
  if (it == impl_->graph->streamByHandle.end()) {
    return absl::NotFoundError(absl::StrCat(
        "connectStream: no stream called '", handle, "' in the graph"));
  }
  const DataStream& s = impl_->graph->streams[it->second];
  if (buffer == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "connectStream '", handle, "': the buffer is null; give a host buffer of one ",
        "record (", s.numElements, " x ", typeName(s.type), ")"));
  }
  char* b = static_cast<char*>(buffer);
  return connectStream(handle, b, b + s.numElements * typeSize(s.type));
}

absl::Status Engine::connectStreamToCallback(
    const std::string& handle, std::function<void(void*)> callback) {
  auto it = impl_->graph->streamByHandle.find(handle);
  if (it == impl_->graph->streamByHandle.end()) {
    return absl::NotFoundError(absl::StrCat(
        "connectStreamToCallback: no stream called '", handle, "'"));
  }
  if (!callback) {
    return absl::InvalidArgumentError(absl::StrCat(
        "connectStreamToCallback '", handle, "': the callback is empty"));
  }
  // Every replica calls the callback (each with its own records).
  internal::StreamConnection c;
  c.mode = internal::StreamConnection::Mode::CALLBACK;
  c.callback = std::move(callback);
  for (unsigned r = 0; r < impl_->replicationFactor; ++r) {
    ConnectionOf(*impl_, r, it->second) = c;
  }
  return absl::OkStatus();
}

absl::Status Engine::connectStreamToRecords(
    const std::string& handle, std::vector<absl::Span<const char>> records) {
  return connectRecords(handle, -1, std::move(records));
}

absl::Status Engine::connectStreamToRecords(
    const std::string& handle, unsigned replica,
    std::vector<absl::Span<const char>> records) {
  POPLAR_SIM_RETURN_IF_ERROR(CheckReplica(
      *impl_, absl::StrCat("connectStreamToRecords '", handle, "'"), replica));
  return connectRecords(handle, static_cast<int>(replica), std::move(records));
}

absl::Status Engine::connectRecords(const std::string& handle, int replica,
                                    std::vector<absl::Span<const char>> records) {
  auto it = impl_->graph->streamByHandle.find(handle);
  if (it == impl_->graph->streamByHandle.end()) {
    return absl::NotFoundError(absl::StrCat(
        "connectStreamToRecords: no stream called '", handle, "'"));
  }
  const DataStream& s = impl_->graph->streams[it->second];
  if (s.direction != StreamDirection::HOST_TO_DEVICE) {
    return absl::InvalidArgumentError(absl::StrCat(
        "connectStreamToRecords '", handle,
        "': the stream goes to the host; connect a buffer or a callback to "
        "receive its records"));
  }
  if (records.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "connectStreamToRecords '", handle, "': no records given"));
  }
  const size_t bytes = s.numElements * typeSize(s.type);
  std::vector<const char*> starts;
  starts.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].data() == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "connectStreamToRecords '", handle, "': record ", i, " is a null pointer"));
    }
    if (records[i].size() != bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "connectStreamToRecords '", handle, "': record ", i, " has ",
          records[i].size(), " bytes; a record of this stream is ", bytes,
          " bytes (", s.numElements, " x ", typeName(s.type), ")"));
    }
    starts.push_back(records[i].data());
  }
  internal::StreamConnection c;
  c.mode = internal::StreamConnection::Mode::RECORDS;
  c.records = std::move(starts);
  c.next = 0;
  SetConnection(*impl_, it->second, replica, c);
  return absl::OkStatus();
}

namespace {

// The host access `handle`, and whether `bytes` is one copy of its tensor
// (false) or one per replica (true); anything else is InvalidArgument.
absl::StatusOr<std::pair<const internal::HostAccessRecord*, bool>> FindHostAccess(
    const internal::EngineImpl& e, const std::string& handle, bool read,
    size_t bytes) {
  auto it = e.graph->hostAccess.find(handle);
  if (it == e.graph->hostAccess.end() ||
      (read ? !it->second.isRead : !it->second.isWrite)) {
    return absl::NotFoundError(absl::StrCat(
        read ? "readTensor" : "writeTensor", ": no tensor called '", handle,
        "'; create one with Graph::", read ? "createHostRead" : "createHostWrite",
        " before building the engine"));
  }
  const Tensor& t = it->second.tensor;
  const size_t want = t.numElements() * typeSize(t.elementType());
  const unsigned r = e.replicationFactor;
  if (bytes == want) return std::make_pair(&it->second, false);
  if (r > 1 && bytes == want * r) return std::make_pair(&it->second, true);
  return absl::InvalidArgumentError(absl::StrCat(
      read ? "readTensor" : "writeTensor", " '", handle, "': the buffer has ",
      bytes, " bytes but the tensor holds ", want, " (", t.numElements(),
      " x ", typeName(t.elementType()), ")",
      r > 1 ? absl::StrCat(", or ", want * r, " for all ", r, " replicas") : ""));
}

void CountHostTransfer(internal::EngineImpl& e, uint64_t bytes, bool toDevice) {
  StepCost c;
  c.hostCycles = e.target.hostTransferCycles(bytes);
  (toDevice ? c.hostBytesToDevice : c.hostBytesFromDevice) = bytes;
  e.cumulative.cost += c;
  e.cumulative.cycles += c.cycles();
  e.cumulative.seconds = e.target.cyclesToSeconds(e.cumulative.cycles);
}

}  // namespace

absl::Status Engine::writeTensor(const std::string& handle, const void* begin,
                                 const void* end) {
  POPLAR_SIM_ASSIGN_OR_RETURN(
      const size_t bytes,
      HostRangeBytes(absl::StrCat("writeTensor '", handle, "'"), begin, end));
  POPLAR_SIM_ASSIGN_OR_RETURN(auto access, FindHostAccess(*impl_, handle, false, bytes));
  const auto [h, perReplica] = access;
  if (h->tensor.containsAliases()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "writeTensor '", handle, "': the tensor repeats elements"));
  }
  // One copy goes to every replica; R copies, one to each.
  internal::EngineImpl& e = *impl_;
  const size_t one = perReplica ? bytes / e.replicationFactor : bytes;
  for (unsigned r = 0; r < e.replicationFactor; ++r) {
    e.scatter(e.memory[r], h->tensor,
              static_cast<const char*>(begin) + (perReplica ? r * one : 0));
  }
  CountHostTransfer(e, bytes, true);
  return absl::OkStatus();
}

absl::Status Engine::readTensor(const std::string& handle, void* begin,
                                void* end) {
  POPLAR_SIM_ASSIGN_OR_RETURN(
      const size_t bytes,
      HostRangeBytes(absl::StrCat("readTensor '", handle, "'"), begin, end));
  POPLAR_SIM_ASSIGN_OR_RETURN(auto access, FindHostAccess(*impl_, handle, true, bytes));
  const auto [h, perReplica] = access;
  // One copy is replica 0's; R copies, one from each.
  internal::EngineImpl& e = *impl_;
  const unsigned replicas = perReplica ? e.replicationFactor : 1;
  const size_t one = bytes / replicas;
  for (unsigned r = 0; r < replicas; ++r) {
    e.gather(e.memory[r], h->tensor, static_cast<char*>(begin) + r * one);
  }
  CountHostTransfer(e, bytes, false);
  return absl::OkStatus();
}

void Engine::setPrintStream(std::ostream* os) { impl_->printStream = os; }
uint64_t Engine::getId() const { return impl_->id; }
unsigned Engine::getNumPrograms() const {
  return static_cast<unsigned>(impl_->roots.size());
}

void Engine::setHostThreads(HostThreads* threads) {
  impl_->hostThreads = threads;
}

void Engine::setRunDeadline(absl::Time deadline) { impl_->runDeadline = deadline; }

const Target& Engine::getTarget() const { return impl_->target; }
const RunStats& Engine::getLastRunStats() const { return impl_->last; }
const RunStats& Engine::getCumulativeStats() const { return impl_->cumulative; }
const LoadCost& Engine::getLoadCost() const { return impl_->profile.load; }
const std::vector<TileMemory>& Engine::getTileMemory() const {
  return impl_->profile.tileMemory;
}
const Profile& Engine::getProfile() const { return impl_->profile; }

void Engine::printProfileSummary(std::ostream& os,
                                 const OptionFlags& opts) const {
  poplar_sim::printProfileSummary(impl_->profile, os, opts);
}

absl::Status Engine::writeReports(const std::string& directory) const {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) {
    return absl::PermissionDeniedError(absl::StrCat(
        "Cannot create the report directory '", directory, "': ", ec.message()));
  }
  const std::filesystem::path dir(directory);
  auto write = [&](const char* name, const std::string& text) -> absl::Status {
    std::ofstream f(dir / name);
    f << text;
    f.close();
    if (!f) {
      return absl::PermissionDeniedError(absl::StrCat(
          "Cannot write report file '", (dir / name).string(), "'"));
    }
    return absl::OkStatus();
  };
  std::ostringstream summary;
  printProfileSummary(summary, {{"showExecutionSteps", "true"}});
  POPLAR_SIM_RETURN_IF_ERROR(write("profile.txt", summary.str()));
  POPLAR_SIM_RETURN_IF_ERROR(write("profile.json", profileToJson(impl_->profile)));
  return write("trace.json", profileToChromeTrace(impl_->profile));
}

void Engine::resetExecutionProfile() {
  Profile& p = impl_->profile;
  p.runs.clear();
  p.trace.clear();
  p.droppedTraceEvents = 0;
  p.total = RunStats{};
  for (StepProfile& s : p.steps) {
    s.executions = 0;
    s.totalCycles = 0;
  }
  for (ComputeSetProfile& c : p.computeSets) {
    c.executions = 0;
    c.totalCycles = 0;
  }
}

}  // namespace poplar_sim
