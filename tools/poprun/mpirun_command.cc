#include "tools/poprun/mpirun_command.h"

#include <unistd.h>

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tensorflow_ipu {
namespace poprun {

LaunchMachine ThisMachine() {
  LaunchMachine m;
  m.is_root = geteuid() == 0;
  m.cores = std::max(1u, std::thread::hardware_concurrency());
  return m;
}

std::vector<std::string> InstanceEnvironment(const PoprunOptions& o, int instance) {
  const int local = o.local_replicas();
  return {
      absl::StrCat("POPDIST_NUM_TOTAL_REPLICAS=", o.num_replicas),
      absl::StrCat("POPDIST_NUM_LOCAL_REPLICAS=", local),
      absl::StrCat("POPDIST_NUM_IPUS_PER_REPLICA=", o.ipus_per_replica),
      "POPDIST_UNIFORM_REPLICAS_PER_INSTANCE=1",
      absl::StrCat("POPDIST_REPLICA_INDEX_OFFSET=", instance * local),
      absl::StrCat("POPDIST_LOCAL_INSTANCE_INDEX=", instance % o.instances_per_host()),
  };
}

std::vector<std::string> BuildMpirunCommand(const PoprunOptions& o,
                                            const LaunchMachine& machine) {
  std::vector<std::string> argv = {"mpirun"};
  if (machine.is_root) argv.push_back("--allow-run-as-root");
  if (o.hosts.empty() && o.num_instances > machine.cores) argv.push_back("--oversubscribe");
  // Every line says which instance wrote it; processes are not pinned to
  // cores (each instance runs host threads of its own).
  argv.insert(argv.end(), {"--tag-output", "--bind-to", "none"});
  if (!o.hosts.empty()) {
    std::vector<std::string> slots;
    for (const std::string& host : o.hosts) {
      slots.push_back(absl::StrCat(host, ":", o.instances_per_host()));
    }
    argv.insert(argv.end(), {"-H", absl::StrJoin(slots, ",")});
  }
  argv.insert(argv.end(), o.mpi_global_args.begin(), o.mpi_global_args.end());
  for (int i = 0; i < o.num_instances; ++i) {
    if (i > 0) argv.push_back(":");
    argv.insert(argv.end(), {"-np", "1"});
    for (std::string& variable : InstanceEnvironment(o, i)) {
      argv.push_back("-x");
      argv.push_back(std::move(variable));
    }
    argv.insert(argv.end(), o.mpi_local_args.begin(), o.mpi_local_args.end());
    if (o.only_output_from_instance.has_value() && *o.only_output_from_instance != i) {
      argv.insert(argv.end(),
                  {"/bin/sh", "-c", "exec \"$@\" >/dev/null 2>&1", "poprun-quiet-instance"});
    }
    argv.insert(argv.end(), o.program.begin(), o.program.end());
  }
  return argv;
}

std::string Topology(const PoprunOptions& o) {
  const int local = o.local_replicas();
  const int ipus = local * o.ipus_per_replica;
  std::string out = absl::StrCat(o.num_instances, " instance", o.num_instances == 1 ? "" : "s",
                                 ", ", o.num_replicas, " replica", o.num_replicas == 1 ? "" : "s",
                                 ", ", o.ipus_per_replica, " IPU",
                                 o.ipus_per_replica == 1 ? "" : "s", " per replica\n");
  for (int i = 0; i < o.num_instances; ++i) {
    const std::string host =
        o.hosts.empty() ? std::string("localhost") : o.hosts[i / o.instances_per_host()];
    absl::StrAppend(&out, "instance ", i, " on ", host, ": replicas [", i * local, ", ",
                    (i + 1) * local, ") of ", o.num_replicas, ", IPUs 0-", ipus - 1, " (",
                    o.ipus_per_replica, " per replica)\n");
  }
  return out;
}

std::string ShellJoin(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-+=./:,@%") == std::string::npos;
    if (plain) {
      words.push_back(a);
      continue;
    }
    std::string quoted = "'";
    for (char c : a) {
      if (c == '\'') {
        quoted += "'\\''";
      } else {
        quoted += c;
      }
    }
    words.push_back(quoted + "'");
  }
  return absl::StrJoin(words, " ");
}

}  // namespace poprun
}  // namespace tensorflow_ipu
