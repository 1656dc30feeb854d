// Data-parallel training of tools/bench's MLP (784-256-128-10, a global
// batch of 32, SGD wrapped in CrossReplicaOptimizer, an infeed and an
// on-device loop: examples/multi_ipu/data_parallel.h) as one process or as
// several under poprun. The program is the same either way:
//
//   bazel run //examples/distributed:replicated_mlp -- --replicas 2
//   bazel build //examples/distributed:replicated_mlp //tools/poprun
//   bazel-bin/tools/poprun/poprun --num-instances 2 --num-replicas 2 bazel-bin/examples/distributed/replicated_mlp
//
// Under poprun each instance runs its share of the replicas, takes every
// N-th batch of the data set (dataset.shard), starts from instance 0's
// initial weights, and all-reduces the gradients with the others; instance
// 0 prints the losses and a checksum of the trained weights, which are the
// same, bit for bit, as one process with as many replicas when each
// instance runs one replica. --weights_out PATH writes instance 0's
// first-layer weights (raw floats) for comparison.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "examples/multi_ipu/data_parallel.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/distributed/broadcast_variables.h"
#include "tensorflow_ipu/distributed/mpi_communicator.h"
#include "tensorflow_ipu/distributed/popdist.h"
#include "tensorflow_ipu/distributed/popdist_ipu_config.h"

namespace tensorflow_ipu {
namespace {

namespace popdist = distributed::popdist;

constexpr int kGlobalBatch = 32;
constexpr int kSteps = 4;

// FNV-1a of the weights' bytes: equal checksums, equal bits.
uint64_t Checksum(const std::vector<float>& values) {
  uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (size_t i = 0; i < values.size() * sizeof(float); ++i) {
    h = (h ^ bytes[i]) * 1099511628211ull;
  }
  return h;
}

absl::Status Main(int argc, char** argv) {
  int replicas = 1;
  std::string weights_out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--replicas" && i + 1 < argc && absl::SimpleAtoi(argv[i + 1], &replicas) &&
        replicas >= 1) {
      ++i;
    } else if (arg == "--weights_out" && i + 1 < argc) {
      weights_out = argv[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown or malformed argument '", arg,
          "'; usage: replicated_mlp [--replicas N] [--weights_out PATH]"));
    }
  }
  ASSIGN_OR_RETURN(popdist::PopDistEnv env, popdist::FromProcessEnvironment());
  examples::DataParallelShare share;
  if (env.is_popdist_env_set) {
    // poprun decides the replicas; --replicas would contradict it.
    replicas = env.num_local_replicas;
    share.instances = env.num_instances;
    share.index = env.instance_index;
    share.configure = [&env](ipu::config::IPUConfig& cfg) {
      return popdist::set_ipu_config(&cfg, env);
    };
    if (env.num_instances > 1) {
      share.after_init = [](const Scope& root, const ClientSession& session,
                            const std::vector<Variable>& variables) -> absl::Status {
        ASSIGN_OR_RETURN(distributed::MpiCommunicator * mpi,
                         distributed::MpiCommunicator::Get());
        ASSIGN_OR_RETURN(distributed::VariableBroadcast broadcast,
                         distributed::VariableBroadcast::Create(root, variables));
        return broadcast.Run(session, *mpi);
      };
    }
  }
  ASSIGN_OR_RETURN(examples::DataParallelRun run,
                   examples::TrainDataParallel(replicas, kGlobalBatch, kSteps, 0, share,
                                               examples::kBenchmarkMlp));
  if (share.index != 0) return absl::OkStatus();
  std::cout << "replicas " << replicas * share.instances << " in " << share.instances
            << " process" << (share.instances == 1 ? "" : "es") << "; losses of instance 0:";
  for (float loss : run.losses) std::cout << " " << loss;
  char checksum[32];
  std::snprintf(checksum, sizeof(checksum), "%016llx",
                static_cast<unsigned long long>(Checksum(run.w1)));
  std::cout << "\nw1 checksum " << checksum << std::endl;
  // What the IPUs would take (a multi-process run adds the host network to
  // each gradient all-reduce: docs/distributed.md).
  std::printf("simulated time of the %d steps: %.1f us\n", kSteps, run.seconds * 1e6);
  if (!weights_out.empty()) {
    std::ofstream f(weights_out, std::ios::binary);
    f.write(reinterpret_cast<const char*>(run.w1.data()), run.w1.size() * sizeof(float));
    if (!f) return absl::InternalError(absl::StrCat("cannot write ", weights_out));
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace tensorflow_ipu

int main(int argc, char** argv) {
  absl::Status s = tensorflow_ipu::Main(argc, argv);
  if (!s.ok()) {
    std::cerr << "replicated_mlp: " << s << std::endl;
    return 1;
  }
  return 0;
}
