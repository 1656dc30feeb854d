// IpuClusterLibrary: the IPU clusters a session has partitioned, by name.
//
// A partitioned run's "_IpuCluster" node names its cluster; the node's
// kernel (registered by the IPU path) finds the cluster's IR here, in the
// session's ResourceManager, as TensorFlow's XLA launch op finds its
// function in the graph's library. Names are unique and stable within a
// session: a cluster gets "cluster_<k>" (k counting from 0) the first time
// it is seen, and an identical cluster (same ops, attrs, constants, shapes
// and device), prepared again for another combination of feeds and
// fetches, gets the same name back, so it shares the compiled executable,
// the profile and the event trace of the first.
//
//   ASSIGN_OR_RETURN(std::shared_ptr<IpuClusterLibrary> lib,
//                    IpuClusterLibrary::Of(resources));
//   std::string name = lib->Add(std::move(ir), /*ipu_ordinal=*/0);
//   ASSIGN_OR_RETURN(auto def, lib->Find(name));
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_CLUSTER_LIBRARY_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_CLUSTER_LIBRARY_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/compiler/cluster_ir.h"
#include "tensorflow_ipu/core/resource_mgr.h"

namespace tensorflow_ipu {

struct IpuClusterDef {
  compiler::ClusterIr ir;  // ir.name is the cluster's name
  int ipu_ordinal = 0;     // runs on /device:IPU:<ipu_ordinal>
};

class IpuClusterLibrary : public ResourceBase {
 public:
  // The session's library, created on first use.
  static absl::StatusOr<std::shared_ptr<IpuClusterLibrary>> Of(
      ResourceManager* resources);

  // Adds `ir` (its name is replaced) and returns its name in the session.
  std::string Add(compiler::ClusterIr ir, int ipu_ordinal);
  // NotFound naming the cluster when the session has none of that name.
  absl::StatusOr<std::shared_ptr<const IpuClusterDef>> Find(
      const std::string& name) const;

 private:
  mutable absl::Mutex mu_;
  // A cluster's contents (everything but its name) -> its name.
  std::map<std::string, std::string> name_of_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<const IpuClusterDef>> clusters_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_CLUSTER_LIBRARY_H_
