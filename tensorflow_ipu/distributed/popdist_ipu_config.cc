#include "tensorflow_ipu/distributed/popdist_ipu_config.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/distributed/mpi_checkpoint_instances.h"
#include "tensorflow_ipu/distributed/mpi_communicator.h"
#include "tensorflow_ipu/distributed/mpi_exchange.h"
#include "tensorflow_ipu/train/checkpoint_instances.h"

namespace tensorflow_ipu {
namespace distributed {
namespace popdist {

absl::Status set_ipu_config(ipu::config::IPUConfig* cfg) {
  ASSIGN_OR_RETURN(PopDistEnv env, FromProcessEnvironment());
  return set_ipu_config(cfg, env);
}

absl::Status set_ipu_config(ipu::config::IPUConfig* cfg, const PopDistEnv& env) {
  if (!env.is_popdist_env_set) return absl::OkStatus();
  cfg->auto_select_ipus = env.num_local_replicas * env.num_ipus_per_replica;
  ipu::config::MultiReplicaDistributionConfig& distribution =
      cfg->experimental.multi_replica_distribution;
  if (env.num_instances == 1) {
    distribution = {};
    train::SetCheckpointInstances(nullptr);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(MpiCommunicator * mpi, MpiCommunicator::Get());
  if (mpi->size() != env.num_instances || mpi->rank() != env.instance_index) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the PopDist environment says instance ", env.instance_index, " of ",
        env.num_instances, " but Open MPI says rank ", mpi->rank(), " of ", mpi->size(),
        "; launch the program with tools/poprun"));
  }
  distribution.process_count = env.num_instances;
  distribution.process_index = env.instance_index;
  distribution.exchange = std::make_shared<MpiExchange>(mpi);
  // Checkpoints: instance 0 reads and writes them for the job.
  train::SetCheckpointInstances(std::make_shared<MpiCheckpointInstances>(mpi));
  return absl::OkStatus();
}

}  // namespace popdist
}  // namespace distributed
}  // namespace tensorflow_ipu
