// IpuCompileCache: a session's compiled IPU clusters, kept in the session's
// ResourceManager as TensorFlow keeps XLA's compilation cache.
//
// A cluster (IpuClusterLibrary) is compiled the first time it runs on a
// device with a given input signature: the key is the cluster's name, the
// configuration's generation and the device (so whatever
// reconfigure_ipu_system replaced is never run again), and the dtypes and
// shapes of the inputs. Each executable comes with the EngineResidency that
// keeps its variables on the device between runs.
//
//   ASSIGN_OR_RETURN(std::shared_ptr<IpuCompileCache> cache,
//                    IpuCompileCache::Of(resources));
//   bool compiled_now = false;
//   ASSIGN_OR_RETURN(IpuCompileCache::Entry* e,
//                    cache->GetOrCompile(def, device, inputs, &compiled_now));
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_COMPILE_CACHE_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_COMPILE_CACHE_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "poplar_sim/host_threads.h"
#include "tensorflow_ipu/compiler/cluster_compiler.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/device/ipu_devices.h"
#include "tensorflow_ipu/runtime/ipu/ipu_variable_residency.h"
#include "tensorflow_ipu/runtime/ipu_cluster_library.h"

namespace tensorflow_ipu {

class IpuCompileCache : public ResourceBase {
 public:
  struct Entry {
    std::unique_ptr<compiler::CompiledCluster> compiled;
    // Declared after `compiled`, so it goes first: it reads its variables
    // home from the engine.
    std::unique_ptr<EngineResidency> residency;
    // What the engine was compiled with (the autoReport options).
    poplar_sim::OptionFlags engine_options;
    // Runs of the engine so far, for report_every_nth_execution; under the
    // device's lock.
    uint64_t executions = 0;
  };

  // The session's cache, created on first use.
  static absl::StatusOr<std::shared_ptr<IpuCompileCache>> Of(
      ResourceManager* resources);

  // The executable of `def` for `device` and `inputs`' dtypes and shapes,
  // compiled now if there is none yet (then `compiled_now` is set), on
  // `threads` where compilation can split its work (the caller's pool; may
  // be null). Compile errors are returned, and the next call tries again.
  absl::StatusOr<Entry*> GetOrCompile(const IpuClusterDef& def,
                                      const device::IpuDeviceHandle& device,
                                      const std::vector<Tensor>& inputs,
                                      bool* compiled_now,
                                      poplar_sim::HostThreads* threads = nullptr);

  // How many compiles succeeded (for tests of the cache).
  int num_compilations() const;

  // True the first time it is called in the session: the engine-switch
  // warning is given once per session.
  bool FirstEngineSwitch() { return !warned_engine_switch_.exchange(true); }

 private:
  // The fields of the last lookup's key, compared before a key string is
  // made: a session that runs one cluster again and again finds its
  // executable without formatting the key each Run.
  struct RecentKey {
    std::string cluster;
    uint64_t generation = 0;
    uint64_t device_id = 0;
    unsigned ipus = 0;
    unsigned tiles_per_ipu = 0;
    std::vector<std::pair<DataType, TensorShape>> inputs;
    Entry* entry = nullptr;  // entries are never removed
  };

  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
  RecentKey recent_ ABSL_GUARDED_BY(mu_);
  int num_compilations_ ABSL_GUARDED_BY(mu_) = 0;
  std::atomic<bool> warned_engine_switch_{false};
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_COMPILE_CACHE_H_
