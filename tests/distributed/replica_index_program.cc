// Run by distributed_test.sh under mpirun: each instance runs its replicas
// of a 2-iteration loop that outfeeds replication_index() and
// cross_replica_sum(replication_index()), over all replicas and over
// groups of 2, checks them against the PopDist environment (indices
// [offset, offset + local) in every iteration, sums equal to 0 + 1 + ... +
// total - 1 on every replica, pair sums 2p + 2p + 1 for pair p) and prints
//   instance 1: replicas 2 3 2 3 sums 6 6 6 6 pair sums 5 5 5 5
// Exits non-zero, with the reason, when anything differs. With
// `--fail-instance K exit|kill`, instance K exits with status 3 (or kills
// itself) just before the loop, while the others wait for it in the
// cross-replica sum: the job must end, not hang.
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/distributed/popdist.h"
#include "tensorflow_ipu/distributed/popdist_ipu_config.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/cross_replica_ops.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"

namespace tensorflow_ipu {
namespace {

namespace popdist = distributed::popdist;

absl::Status Main(int argc, char** argv) {
  ASSIGN_OR_RETURN(popdist::PopDistEnv env, popdist::FromProcessEnvironment());
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  RETURN_IF_ERROR(popdist::set_ipu_config(&cfg, env));
  RETURN_IF_ERROR(cfg.configure_ipu_system());

  constexpr int kIterations = 2;
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  ipu::IPUOutfeedQueue outfeed("indices");
  ASSIGN_OR_RETURN(
      std::vector<Output> loop,
      ipu::ipu_compiler::compile(
          ipu, [&](const Scope& s, const std::vector<Output>&) {
            absl::StatusOr<std::vector<Output>> out = ipu::loops::repeat(
                s, kIterations,
                [&](const Scope& b, const std::vector<Output>& c, const std::vector<Output>&) {
                  Output index = ipu::ops::replication_index(b);
                  outfeed.enqueue(b, {index, ipu::ops::cross_replica_sum(b, index),
                                      ipu::ops::cross_replica_sum(b, index, 2)});
                  return std::vector<Output>{ops::Add(b, c[0], index)};
                },
                {ops::Const(s, 0)});
            if (!out.ok()) s.UpdateStatus(out.status());
            return out.ok() ? *out : std::vector<Output>{};
          }, {}));
  std::vector<Output> dequeued = outfeed.dequeue(root);
  RETURN_IF_ERROR(root.status());
  ClientSession session(root);
  std::vector<Tensor> out;
  if (argc == 4 && std::string(argv[1]) == "--fail-instance" &&
      std::to_string(env.instance_index) == argv[2]) {
    std::cerr << "instance " << env.instance_index << " fails on purpose" << std::endl;
    if (std::string(argv[3]) == "kill") kill(getpid(), SIGKILL);
    _exit(3);
  }
  RETURN_IF_ERROR(session.Run({loop[0]}, &out));
  RETURN_IF_ERROR(session.Run({dequeued[0], dequeued[1], dequeued[2]}, &out));

  const int local = env.num_local_replicas;
  const int total = env.num_total_replicas;
  std::vector<int> indices(out[0].data<int>(), out[0].data<int>() + out[0].NumElements());
  std::vector<int> sums(out[1].data<int>(), out[1].data<int>() + out[1].NumElements());
  std::vector<int> pair_sums(out[2].data<int>(), out[2].data<int>() + out[2].NumElements());
  std::vector<int> expected_indices, expected_sums, expected_pair_sums;
  for (int i = 0; i < kIterations; ++i) {
    for (int r = 0; r < local; ++r) {
      expected_indices.push_back(env.replica_index_offset + r);
      expected_sums.push_back(total * (total - 1) / 2);
      const int pair = (env.replica_index_offset + r) / 2;
      expected_pair_sums.push_back(4 * pair + 1);
    }
  }
  const std::string line = absl::StrCat("instance ", env.instance_index, ": replicas ",
                                        absl::StrJoin(indices, " "), " sums ",
                                        absl::StrJoin(sums, " "), " pair sums ",
                                        absl::StrJoin(pair_sums, " "));
  if (indices != expected_indices || sums != expected_sums ||
      pair_sums != expected_pair_sums) {
    return absl::InternalError(absl::StrCat(
        line, "; expected replicas ", absl::StrJoin(expected_indices, " "), " sums ",
        absl::StrJoin(expected_sums, " "), " pair sums ",
        absl::StrJoin(expected_pair_sums, " ")));
  }
  std::cout << line << std::endl;
  return absl::OkStatus();
}

}  // namespace
}  // namespace tensorflow_ipu

int main(int argc, char** argv) {
  absl::Status s = tensorflow_ipu::Main(argc, argv);
  if (!s.ok()) {
    std::cerr << "replica_index_program: " << s << std::endl;
    return 1;
  }
  return 0;
}
