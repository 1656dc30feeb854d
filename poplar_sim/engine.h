// Engine: compiles a graph and its programs, loads them on a device and runs
// them (poplar::Engine), computing the simulated cost of everything it runs.
//
//   absl::StatusOr<Engine> engine = Engine::create(graph, {prog0, prog1});
//   if (!engine.ok()) ...;                       // validation, out of memory
//   engine->connectStream("in", data.data(), data.data() + data.size());
//   POPLAR_SIM_RETURN_IF_ERROR(engine->load(device));
//   POPLAR_SIM_RETURN_IF_ERROR(engine->run(0));
//   engine->getLastRunStats().seconds;            // simulated time of run 0
//   engine->printProfileSummary(std::cout);
//
// Compilation (create) validates the graph and programs (unmapped tensors or
// vertices, unconnected or mistyped fields, shape mismatches: each an error
// naming the culprit), lays out memory per tile (ResourceExhausted "Out of
// memory on tile N: X bytes used, Y available" naming the largest users,
// unless the option debug.allowOutOfMemory is set) and computes the static
// cost of every step. Execution is functional: variables hold real values;
// each run's cost is the sum of the static costs of the steps it executed
// (loops and branches taken dynamically) plus a per-run host overhead.
//
// Device memory lives in the engine: variables keep their values between
// runs of this engine, also when another engine was loaded on the device in
// between (the caller decides what such a switch costs; see getLoadCost and
// Device::getNumEngineLoads).
#ifndef POPLAR_SIM_ENGINE_H_
#define POPLAR_SIM_ENGINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "poplar_sim/device.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/option_flags.h"
#include "poplar_sim/profile.h"
#include "poplar_sim/program.h"
#include "poplar_sim/replica_subset.h"

namespace poplar_sim {

namespace internal {
struct EngineImpl;
}  // namespace internal

class Engine {
 public:
  // Options: see EngineOptions in option_flags.h; POPLAR_ENGINE_OPTIONS in
  // the environment adds to and overrides them. `compileThreads` (not
  // owned, used only during the call; null: the caller's thread) analyse
  // the compute sets of a large graph side by side; the engine is the same.
  static absl::StatusOr<Engine> create(
      const Graph& graph, const std::vector<program::Program>& programs,
      const OptionFlags& options = {},
      const std::vector<std::string>& programNames = {},
      HostThreads* compileThreads = nullptr);
  static absl::StatusOr<Engine> create(const Graph& graph,
                                       const program::Program& program,
                                       const OptionFlags& options = {},
                                       HostThreads* compileThreads = nullptr);

  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;
  ~Engine();

  // Puts the engine's code and constants on the device, which must be
  // attached and have the engine's target. Replaces whatever engine the
  // device held (Device::getNumEngineLoads counts loads).
  absl::Status load(Device& device);
  // Runs program `programIndex`. FailedPrecondition if the engine is not
  // the one loaded on its device, a stream it uses is unconnected or has
  // run dry; Internal if a vertex's compute() fails.
  absl::Status run(unsigned programIndex = 0, const std::string& debugName = "");

  // Host buffers for streams. A buffer of several records is consumed (or
  // filled) one record per stream copy, wrapping around: a circular buffer.
  // On a replicated graph, a host-to-device stream connected without a
  // replica index feeds every replica from the same buffer, and a
  // device-to-host one receives replica 0's records (the others' are
  // discarded); the overloads with `replica` connect one replica. A
  // host-to-device buffer must stay unchanged while a run uses it: the
  // engine may read a record in place instead of copying it into device
  // memory (when the variable it fills is only read after it).
  absl::Status connectStream(const std::string& handle, void* begin,
                             void* end);
  absl::Status connectStream(const std::string& handle, unsigned replica,
                             void* begin, void* end);
  // A buffer of exactly one record, used by every copy.
  absl::Status connectStream(const std::string& handle, void* buffer);
  // A callback given a pointer to one record to fill (host-to-device) or
  // read (device-to-host).
  absl::Status connectStreamToCallback(const std::string& handle,
                                       std::function<void(void*)> callback);
  // Host-to-device only: separate host buffers of one record each, consumed
  // one per copy in order, wrapping around; each must hold exactly one
  // record. The engine reads them in place (a simulator extension: Poplar
  // would need them packed into one buffer, a copy the simulator can skip).
  // They must stay valid and unchanged while runs use them.
  absl::Status connectStreamToRecords(const std::string& handle,
                                      std::vector<absl::Span<const char>> records);
  absl::Status connectStreamToRecords(const std::string& handle, unsigned replica,
                                      std::vector<absl::Span<const char>> records);

  // Copies the tensor named by Graph::createHostWrite / createHostRead from
  // or to host memory. The buffer must hold exactly the tensor's elements:
  // written to every replica, read from replica 0; or, on a replicated
  // graph, R times as many: one copy per replica, in replica order.
  // These transfers count as host bytes in getCumulativeStats().
  absl::Status writeTensor(const std::string& handle, const void* begin,
                           const void* end);
  absl::Status readTensor(const std::string& handle, void* begin, void* end);

  // Where PrintTensor writes (default std::cout).
  void setPrintStream(std::ostream* os);
  // Host threads that runs may use for large compute sets (not owned; must
  // outlive the runs that use it; nullptr, the default: the caller's thread
  // only). Results and simulated costs are the same either way.
  void setHostThreads(HostThreads* threads);
  // Runs after `deadline` stop at the next check of a RepeatWhileTrue or
  // RepeatWhileFalse condition with DeadlineExceeded, naming the loop: the
  // one way a run may not end (a condition that never changes) ends. The
  // default, absl::InfiniteFuture(), never stops a run. (Poplar has no such
  // call; its runs are stopped from the host.)
  void setRunDeadline(absl::Time deadline);

  // Makes this engine's replicas the replicas [firstReplica, firstReplica +
  // getReplicationFactor()) of a job of subset.globalReplicationFactor
  // replicas spread over processes (replica_subset.h): their replication
  // index constants read their global index, and cross-replica reductions
  // span the job through subset.exchange. InvalidArgument if the local
  // replicas do not fit in the global ones or the exchange is missing while
  // other replicas exist. A globalReplicationFactor of 0 undoes it.
  absl::Status setRuntimeReplicaSubset(RuntimeReplicaSubset subset);

  uint64_t getId() const;
  // The graph's replication factor (1 if it is not replicated).
  unsigned getReplicationFactor() const;
  unsigned getNumPrograms() const;
  const Target& getTarget() const;
  // Cost of the last run, and totals over all runs and host transfers.
  const RunStats& getLastRunStats() const;
  const RunStats& getCumulativeStats() const;
  // What loading this engine onto a device costs (code, vertex state and
  // constants over the host link).
  const LoadCost& getLoadCost() const;
  const std::vector<TileMemory>& getTileMemory() const;
  const Profile& getProfile() const;
  void printProfileSummary(std::ostream& os,
                           const OptionFlags& opts = {}) const;
  // Writes profile.txt, profile.json and trace.json (Chrome trace) into
  // `directory`, creating it if needed. Done after every run when the
  // option autoReport.all is true (into autoReport.directory).
  absl::Status writeReports(const std::string& directory) const;
  // Clears the execution part of the profile (runs, counters, trace).
  void resetExecutionProfile();

 private:
  explicit Engine(std::unique_ptr<internal::EngineImpl> impl);
  // Connects records to one replica, or to all (replica -1).
  absl::Status connectRecords(const std::string& handle, int replica,
                              std::vector<absl::Span<const char>> records);
  std::unique_ptr<internal::EngineImpl> impl_;
};

}  // namespace poplar_sim

#endif  // POPLAR_SIM_ENGINE_H_
