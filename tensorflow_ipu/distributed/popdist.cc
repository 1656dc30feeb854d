#include "tensorflow_ipu/distributed/popdist.h"

#include <cstdlib>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace distributed {
namespace popdist {
namespace {

constexpr char kTotal[] = "POPDIST_NUM_TOTAL_REPLICAS";
constexpr char kLocal[] = "POPDIST_NUM_LOCAL_REPLICAS";
constexpr char kIpus[] = "POPDIST_NUM_IPUS_PER_REPLICA";
constexpr char kOffset[] = "POPDIST_REPLICA_INDEX_OFFSET";
constexpr char kUniform[] = "POPDIST_UNIFORM_REPLICAS_PER_INSTANCE";
constexpr char kLocalInstance[] = "POPDIST_LOCAL_INSTANCE_INDEX";
constexpr char kRank[] = "OMPI_COMM_WORLD_RANK";
constexpr char kSize[] = "OMPI_COMM_WORLD_SIZE";
constexpr char kLocalRank[] = "OMPI_COMM_WORLD_LOCAL_RANK";
constexpr char kLocalSize[] = "OMPI_COMM_WORLD_LOCAL_SIZE";

// No job comes near this; a larger value is a typo, not a configuration.
constexpr int kMaxValue = 1 << 20;

// The variable's value as an integer, `fallback` when unset.
absl::StatusOr<int> ReadInt(const EnvLookup& lookup, const char* name, int fallback,
                            bool* was_set = nullptr) {
  const std::optional<std::string> text = lookup(name);
  if (was_set != nullptr) *was_set = text.has_value();
  if (!text.has_value()) return fallback;
  const bool digits_only =
      !text->empty() && text->find_first_not_of("0123456789") == std::string::npos;
  int value = 0;
  if (!digits_only || !absl::SimpleAtoi(*text, &value) || value > kMaxValue) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, "='", *text, "' is not a decimal integer from 0 to ", kMaxValue,
        "; launch the program with tools/poprun, which sets it"));
  }
  return value;
}

absl::Status AtLeastOne(const char* name, int value) {
  if (value >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, "=", value, " must be at least 1"));
}

}  // namespace

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

absl::StatusOr<PopDistEnv> ReadPopDistEnv(const EnvLookup& lookup) {
  PopDistEnv env;
  bool total_set = false;
  ASSIGN_OR_RETURN(env.num_total_replicas, ReadInt(lookup, kTotal, 1, &total_set));
  if (!total_set) {
    // Outside poprun: one process with one replica, unless POPDIST_*
    // variables say otherwise (then the contract is half set: refuse it
    // rather than run every instance as if it were alone).
    std::vector<std::string> stray;
    for (const char* name : {kLocal, kIpus, kOffset, kUniform, kLocalInstance}) {
      if (lookup(name).has_value()) stray.push_back(name);
    }
    if (!stray.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          absl::StrJoin(stray, ", "), " set but ", kTotal,
          " is not; set every POPDIST_* variable or none (tools/poprun sets them all)"));
    }
    return env;
  }
  env.is_popdist_env_set = true;
  RETURN_IF_ERROR(AtLeastOne(kTotal, env.num_total_replicas));
  ASSIGN_OR_RETURN(env.num_instances, ReadInt(lookup, kSize, 1));
  RETURN_IF_ERROR(AtLeastOne(kSize, env.num_instances));
  ASSIGN_OR_RETURN(env.instance_index, ReadInt(lookup, kRank, 0));
  if (env.instance_index >= env.num_instances) {
    return absl::InvalidArgumentError(absl::StrCat(
        kRank, "=", env.instance_index, " is not below ", kSize, "=", env.num_instances));
  }
  ASSIGN_OR_RETURN(int uniform, ReadInt(lookup, kUniform, 1));
  if (uniform != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        kUniform, "=", uniform, ": only a uniform layout (1: every instance runs the same "
        "number of replicas) is supported; make ", kTotal, " a multiple of the instance count"));
  }
  bool local_set = false;
  ASSIGN_OR_RETURN(env.num_local_replicas, ReadInt(lookup, kLocal, 0, &local_set));
  if (!local_set) {
    if (env.num_total_replicas % env.num_instances != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          kTotal, "=", env.num_total_replicas, " is not divisible by ", kSize, "=",
          env.num_instances, " (instances); every instance must run the same number of replicas"));
    }
    env.num_local_replicas = env.num_total_replicas / env.num_instances;
  }
  RETURN_IF_ERROR(AtLeastOne(kLocal, env.num_local_replicas));
  if (static_cast<int64_t>(env.num_local_replicas) * env.num_instances != env.num_total_replicas) {
    return absl::InvalidArgumentError(absl::StrCat(
        kTotal, "=", env.num_total_replicas, " is not ", kLocal, "=", env.num_local_replicas,
        " x ", kSize, "=", env.num_instances, " (instances); every instance must run ",
        kTotal, " / instances replicas"));
  }
  const int expected_offset = env.instance_index * env.num_local_replicas;
  ASSIGN_OR_RETURN(env.replica_index_offset, ReadInt(lookup, kOffset, expected_offset));
  if (env.replica_index_offset != expected_offset) {
    return absl::InvalidArgumentError(absl::StrCat(
        kOffset, "=", env.replica_index_offset, " but instance ", kRank, "=",
        env.instance_index, " with ", kLocal, "=", env.num_local_replicas,
        " must start at replica ", expected_offset,
        " (instances own consecutive blocks of replicas in rank order)"));
  }
  ASSIGN_OR_RETURN(env.num_ipus_per_replica, ReadInt(lookup, kIpus, 1));
  RETURN_IF_ERROR(AtLeastOne(kIpus, env.num_ipus_per_replica));
  ASSIGN_OR_RETURN(env.num_local_instances, ReadInt(lookup, kLocalSize, 1));
  RETURN_IF_ERROR(AtLeastOne(kLocalSize, env.num_local_instances));
  bool local_rank_set = false;
  ASSIGN_OR_RETURN(env.local_instance_index, ReadInt(lookup, kLocalRank, 0, &local_rank_set));
  bool local_instance_set = false;
  ASSIGN_OR_RETURN(int local_instance, ReadInt(lookup, kLocalInstance, 0, &local_instance_set));
  if (local_instance_set && local_rank_set && local_instance != env.local_instance_index) {
    return absl::InvalidArgumentError(absl::StrCat(
        kLocalInstance, "=", local_instance, " disagrees with ", kLocalRank, "=",
        env.local_instance_index, "; the launcher and Open MPI placed the instance differently "
        "(give mpirun the hosts through poprun's -H, not through --mpi-global-args)"));
  }
  if (local_instance_set) env.local_instance_index = local_instance;
  if (env.local_instance_index >= env.num_local_instances) {
    return absl::InvalidArgumentError(absl::StrCat(
        "local instance index ", env.local_instance_index, " is not below ", kLocalSize, "=",
        env.num_local_instances));
  }
  return env;
}

absl::StatusOr<PopDistEnv> FromProcessEnvironment() {
  return ReadPopDistEnv(ProcessEnvironment());
}

absl::StatusOr<bool> is_popdist_env_set() {
  ASSIGN_OR_RETURN(PopDistEnv env, FromProcessEnvironment());
  return env.is_popdist_env_set;
}

#define TFIPU_POPDIST_GETTER(function, field)                    \
  absl::StatusOr<int> function() {                               \
    ASSIGN_OR_RETURN(PopDistEnv env, FromProcessEnvironment()); \
    return env.field;                                            \
  }
TFIPU_POPDIST_GETTER(get_num_instances, num_instances)
TFIPU_POPDIST_GETTER(get_instance_index, instance_index)
TFIPU_POPDIST_GETTER(get_num_total_replicas, num_total_replicas)
TFIPU_POPDIST_GETTER(get_num_local_replicas, num_local_replicas)
TFIPU_POPDIST_GETTER(get_replica_index_offset, replica_index_offset)
TFIPU_POPDIST_GETTER(get_num_ipus_per_replica, num_ipus_per_replica)
#undef TFIPU_POPDIST_GETTER

std::string Describe(const PopDistEnv& env) {
  return absl::StrCat("instance ", env.instance_index, " of ", env.num_instances,
                      ": replicas [", env.replica_index_offset, ", ",
                      env.replica_index_offset + env.num_local_replicas, ") of ",
                      env.num_total_replicas, ", ", env.num_ipus_per_replica, " IPU",
                      env.num_ipus_per_replica == 1 ? "" : "s", " per replica");
}

}  // namespace popdist
}  // namespace distributed
}  // namespace tensorflow_ipu
