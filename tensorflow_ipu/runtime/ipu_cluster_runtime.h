// IpuClusterRuntime: one IPU cluster of a prepared run, as the session's
// "_IpuCluster" kernel executes it; and the process-wide table through which
// that kernel finds it.
//
// The runtime compiles its cluster for the device it is placed on the first
// time it runs with a given input signature (dtypes, shapes and the device's
// id and target), caches the engine, and on each run streams the inputs in,
// loads the engine when another one is on the device (an engine switch,
// warned about once per session), runs it, and streams the results out. Runs
// on the simulated devices are serialised process-wide.
//
// The kernel returns the results packed into one byte tensor at the offsets
// of ResultLayout (the graph's ops have no heterogeneous output lists); each
// result is unpacked by an "_IpuClusterOutput" node.
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_CLUSTER_RUNTIME_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_CLUSTER_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "poplar_sim/host_threads.h"
#include "tensorflow_ipu/compiler/cluster_compiler.h"
#include "tensorflow_ipu/compiler/cluster_ir.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/runtime/ipu_run_profile.h"
#include "tensorflow_ipu/runtime/ipu_variable_residency.h"

namespace tensorflow_ipu {

// Names of the internal ops that stand for clusters in a partitioned graph.
inline constexpr char kIpuClusterOp[] = "_IpuCluster";
inline constexpr char kIpuClusterOutputOp[] = "_IpuClusterOutput";

// The "_IpuCluster" op takes its inputs as one list per dtype, in this
// order (list "in_<name>" of length attr "N_<name>", dtype attr
// "T_<name>", <name> = DataTypeString), because graph ops have no lists of
// mixed dtypes. Cluster arguments are ordered the same way.
const std::vector<DataType>& ClusterInputGroups();

// Per session: what all its clusters share.
struct IpuSessionState {
  std::atomic<bool> warned_engine_switch{false};
  // The session's variables, which clusters keep in device memory.
  std::shared_ptr<ResourceManager> resources;
};

// Byte offset of each result in the packed output, and the total size.
struct ResultLayout {
  std::vector<int64_t> offsets;
  int64_t total_bytes = 0;
};
// Results are laid out in order, each at an 8-byte aligned offset. Every
// result shape must be fully defined.
ResultLayout ComputeResultLayout(const compiler::ClusterIr& ir);

class IpuClusterRuntime {
 public:
  IpuClusterRuntime(compiler::ClusterIr ir, int ipu_ordinal,
                    std::shared_ptr<IpuSessionState> session);

  const compiler::ClusterIr& ir() const { return ir_; }
  int ipu_ordinal() const { return ipu_ordinal_; }
  const ResultLayout& layout() const { return layout_; }

  // Runs the cluster: `inputs` in argument order; `packed` receives the
  // results laid out by layout(). The simulator may use `host_threads`
  // (nullptr: only the calling thread) for large compute sets.
  absl::Status Run(const std::vector<Tensor>& inputs, Tensor* packed,
                   poplar_sim::HostThreads* host_threads = nullptr);

  // The profile of the latest Run since the last call, if any.
  std::optional<IpuClusterProfile> TakeLastProfile();
  // How many times the cluster was compiled (for tests of the cache).
  int num_compilations() const;

 private:
  EngineResidency* ResidencyOf(compiler::CompiledCluster* compiled);
  absl::StatusOr<compiler::CompiledCluster*> GetOrCompile(
      const std::vector<Tensor>& inputs, const poplar_sim::Device& device,
      bool* compiled_now);

  const compiler::ClusterIr ir_;
  const int ipu_ordinal_;
  const std::shared_ptr<IpuSessionState> session_;
  const ResultLayout layout_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<compiler::CompiledCluster>> cache_
      ABSL_GUARDED_BY(mu_);
  int num_compilations_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<IpuClusterProfile> last_ ABSL_GUARDED_BY(mu_);
  // Declared after cache_ so they go first: they read their engines'
  // variables home when destroyed.
  absl::flat_hash_map<compiler::CompiledCluster*,
                      std::unique_ptr<EngineResidency>>
      residencies_ ABSL_GUARDED_BY(mu_);
};

// Process-wide: key (an attr of the "_IpuCluster" node) -> runtime.
class IpuClusterTable {
 public:
  static IpuClusterTable& Get();
  int64_t Register(std::shared_ptr<IpuClusterRuntime> runtime);
  void Unregister(int64_t key);
  // NotFound when the key is unknown (the session that made it is gone).
  absl::StatusOr<std::shared_ptr<IpuClusterRuntime>> Find(int64_t key) const;

 private:
  mutable absl::Mutex mu_;
  int64_t next_key_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<int64_t, std::shared_ptr<IpuClusterRuntime>> runtimes_
      ABSL_GUARDED_BY(mu_);
};

// Registers runtimes for as long as it lives.
class IpuClusterRegistration {
 public:
  IpuClusterRegistration() = default;
  IpuClusterRegistration(const IpuClusterRegistration&) = delete;
  IpuClusterRegistration& operator=(const IpuClusterRegistration&) = delete;
  ~IpuClusterRegistration();
  int64_t Add(std::shared_ptr<IpuClusterRuntime> runtime);
  const std::vector<std::shared_ptr<IpuClusterRuntime>>& runtimes() const {
    return runtimes_;
  }

 private:
  std::vector<int64_t> keys_;
  std::vector<std::shared_ptr<IpuClusterRuntime>> runtimes_;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_CLUSTER_RUNTIME_H_
