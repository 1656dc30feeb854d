// The PopDist environment contract: what each instance (process) of a
// multi-process replicated run learns about its place in the job, read from
// the environment that tools/poprun (through Open MPI's mpirun) gives every
// rank, as the vendor's PopDist library reads it.
//
//   ASSIGN_OR_RETURN(popdist::PopDistEnv env, popdist::FromProcessEnvironment());
//   if (env.is_popdist_env_set) ...
//   env.num_local_replicas;      // replicas this instance runs
//   env.replica_index_offset;    // the global index of its first replica
//
// The variables (all decimal integers):
//   POPDIST_NUM_TOTAL_REPLICAS       replicas of the whole job
//   POPDIST_NUM_LOCAL_REPLICAS       replicas of this instance
//   POPDIST_NUM_IPUS_PER_REPLICA     IPUs of each replica
//   POPDIST_REPLICA_INDEX_OFFSET     global index of this instance's first
//                                    replica (default: instance x local)
//   POPDIST_UNIFORM_REPLICAS_PER_INSTANCE  1: every instance runs the same
//                                    number of replicas (the only layout
//                                    supported; 0 is refused)
//   POPDIST_LOCAL_INSTANCE_INDEX     this instance's index on its host
//   OMPI_COMM_WORLD_RANK / _SIZE     instance index and count (Open MPI's)
//   OMPI_COMM_WORLD_LOCAL_RANK / _LOCAL_SIZE  index and count on this host
//
// Instance i runs the global replicas [offset, offset + local), offset =
// i x local: the contiguous layout of the vendor's poprun. Without
// POPDIST_NUM_TOTAL_REPLICAS the environment is "not set" and describes a
// single process with one replica (is_popdist_env_set false), as PopDist's
// getters answer outside poprun.
#ifndef TENSORFLOW_IPU_DISTRIBUTED_POPDIST_H_
#define TENSORFLOW_IPU_DISTRIBUTED_POPDIST_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace tensorflow_ipu {
namespace distributed {
namespace popdist {

// Looks one variable up: its value, or nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The real process environment (getenv).
EnvLookup ProcessEnvironment();

// One instance's view of the job, validated.
struct PopDistEnv {
  bool is_popdist_env_set = false;
  int num_instances = 1;
  int instance_index = 0;
  int num_total_replicas = 1;
  int num_local_replicas = 1;
  int replica_index_offset = 0;
  int num_ipus_per_replica = 1;
  // This instance's index and the instance count on its own host.
  int local_instance_index = 0;
  int num_local_instances = 1;
};

// Reads and checks the contract. InvalidArgument, naming the variables and
// their values, when a value is not a non-negative decimal integer, a count
// is 0, the numbers disagree (total != local x instances, an offset other
// than instance x local, a rank beyond the size), replicas are not uniform,
// or POPDIST_* variables are set without POPDIST_NUM_TOTAL_REPLICAS.
absl::StatusOr<PopDistEnv> ReadPopDistEnv(const EnvLookup& lookup);
absl::StatusOr<PopDistEnv> FromProcessEnvironment();

// PopDist's getters on the process environment. Each reads and validates
// it; an invalid environment is an error (never a silent default).
absl::StatusOr<bool> is_popdist_env_set();
absl::StatusOr<int> get_num_instances();
absl::StatusOr<int> get_instance_index();
absl::StatusOr<int> get_num_total_replicas();
absl::StatusOr<int> get_num_local_replicas();
absl::StatusOr<int> get_replica_index_offset();
absl::StatusOr<int> get_num_ipus_per_replica();

// A one-line description of the instance ("instance 1 of 2: replicas [2, 4)
// of 4, 1 IPU per replica"), for logs.
std::string Describe(const PopDistEnv& env);

}  // namespace popdist
}  // namespace distributed
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DISTRIBUTED_POPDIST_H_
