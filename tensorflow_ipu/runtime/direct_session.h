// DirectSession: the in-process Session. Holds the graph, a CPU device and
// a cache of Executors keyed by (feeds, fetches, targets).
//
// Preparing a run places its nodes (placer.h). When some run on an IPU, the
// run is partitioned (ipu_partitioner.h): each IPU cluster becomes one node
// of the executor's graph whose kernel runs the cluster's compiled engine on
// the simulated device. The cost of the IPU part of the last run is kept:
//
//   IpuRunProfile p = session.last_run_profile();
#ifndef TENSORFLOW_IPU_RUNTIME_DIRECT_SESSION_H_
#define TENSORFLOW_IPU_RUNTIME_DIRECT_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/runtime/cpu_device.h"
#include "tensorflow_ipu/runtime/executor.h"
#include "tensorflow_ipu/runtime/ipu_cluster_runtime.h"
#include "tensorflow_ipu/runtime/ipu_run_profile.h"
#include "tensorflow_ipu/runtime/session.h"

namespace tensorflow_ipu {

class DirectSession : public Session {
 public:
  explicit DirectSession(const SessionOptions& options);
  ~DirectSession() override;

  absl::Status Create(const GraphDef& graph) override;
  absl::Status Extend(const GraphDef& graph) override;
  absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& inputs,
                   const std::vector<std::string>& output_names,
                   const std::vector<std::string>& target_names,
                   std::vector<Tensor>* outputs) override;
  absl::Status Close() override;

  // How many distinct executors have been prepared (for tests of caching).
  int num_cached_executors() const;

  // The session's resource variables (for tools and tests; graphs reach
  // them through VarHandleOp).
  ResourceManager* resource_manager() const { return resources_.get(); }

  // The simulated cost of the IPU clusters the last Run executed (empty when
  // it ran only on the host).
  IpuRunProfile last_run_profile() const;

 private:
  struct Prepared {
    // For runs with IPU clusters: the partitioned graph the executor runs
    // and the clusters' runtimes (declared first: the executor points into
    // them and must go first).
    std::unique_ptr<Graph> partitioned_graph;
    std::unique_ptr<IpuClusterRegistration> clusters;
    std::unique_ptr<Executor> executor;
    // Per feed: the node output it replaces, for validating values.
    std::vector<TensorRef> feeds;
  };

  absl::StatusOr<std::shared_ptr<const Prepared>> GetOrPrepare(
      const std::vector<std::pair<std::string, Tensor>>& inputs,
      const std::vector<std::string>& output_names,
      const std::vector<std::string>& target_names);
  absl::StatusOr<std::shared_ptr<const Prepared>> Prepare(
      const std::vector<std::pair<std::string, Tensor>>& inputs,
      const std::vector<std::string>& output_names,
      const std::vector<std::string>& target_names) const;
  absl::StatusOr<TensorRef> ResolveTensor(const std::string& name,
                                          const char* role) const;
  // Partitions a run that places nodes on IPUs and builds its executor.
  absl::Status PrepareIpuRun(const Executor::Spec& spec,
                             const std::vector<const Node*>& needed,
                             Prepared* prepared) const;
  void RecordIpuProfile(const Prepared& prepared);

  SessionOptions options_;
  std::unique_ptr<CpuDevice> cpu_;
  // Declared before the executor cache: cached IPU clusters bring their
  // resident variables home into it when they are destroyed.
  std::shared_ptr<ResourceManager> resources_ =
      std::make_shared<ResourceManager>();
  mutable absl::Mutex mu_;
  std::unique_ptr<Graph> graph_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<std::string, std::shared_ptr<const Prepared>> cache_
      ABSL_GUARDED_BY(mu_);
  std::shared_ptr<IpuSessionState> ipu_state_ =
      std::make_shared<IpuSessionState>();
  mutable absl::Mutex profile_mu_;
  IpuRunProfile last_run_profile_ ABSL_GUARDED_BY(profile_mu_);
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_DIRECT_SESSION_H_
