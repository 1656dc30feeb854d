// The vendor's popdist.tensorflow.set_ipu_config: makes an IPUConfig run
// this instance's share of a poprun job.
//
//   ipu::config::IPUConfig cfg;
//   RETURN_IF_ERROR(distributed::popdist::set_ipu_config(&cfg));
//   RETURN_IF_ERROR(cfg.configure_ipu_system());
//   // ... build the graph for ONE replica as usual; replication_index() is
//   // global, cross_replica_sum/mean span every instance.
//
// It attaches num_local_replicas x num_ipus_per_replica IPUs (so the
// program's shards replicate into the local replicas, as without poprun)
// and sets experimental.multi_replica_distribution: the process count and
// index, and the Open MPI exchange that the simulated engines' cross-replica
// reductions go through. It also makes train::Saver and
// train::latest_checkpoint of this process leave the files to instance 0
// (train/checkpoint_instances.h). Outside poprun (is_popdist_env_set false)
// it leaves the configuration as it was.
#ifndef TENSORFLOW_IPU_DISTRIBUTED_POPDIST_IPU_CONFIG_H_
#define TENSORFLOW_IPU_DISTRIBUTED_POPDIST_IPU_CONFIG_H_

#include "absl/status/status.h"
#include "tensorflow_ipu/distributed/popdist.h"
#include "tensorflow_ipu/ipu/config.h"

namespace tensorflow_ipu {
namespace distributed {
namespace popdist {

// From the process environment. Errors: the environment's
// (InvalidArgument), MPI failing to start (Internal), and an environment
// that disagrees with Open MPI's view of the job (FailedPrecondition
// naming both: launched by hand with wrong numbers).
absl::Status set_ipu_config(ipu::config::IPUConfig* cfg);
absl::Status set_ipu_config(ipu::config::IPUConfig* cfg, const PopDistEnv& env);

}  // namespace popdist
}  // namespace distributed
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DISTRIBUTED_POPDIST_IPU_CONFIG_H_
