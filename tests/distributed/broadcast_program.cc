// Run by distributed_test.sh under poprun: each instance initialises a
// variable on its IPU to a value of its own ((index + 1) x [1, 2, 3]),
// VariableBroadcast gives every instance instance 0's, and a replicated
// step adds cross_replica_sum(1) (the replica count) to it. Prints
//   instance 1: after broadcast 1 2 3 after step 3 4 5
// (with 2 replicas) and exits non-zero if the values are not these.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/distributed/broadcast_variables.h"
#include "tensorflow_ipu/distributed/mpi_communicator.h"
#include "tensorflow_ipu/distributed/popdist.h"
#include "tensorflow_ipu/distributed/popdist_ipu_config.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/cross_replica_ops.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/scopes.h"

namespace tensorflow_ipu {
namespace {

namespace popdist = distributed::popdist;

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

absl::Status Main() {
  ASSIGN_OR_RETURN(popdist::PopDistEnv env, popdist::FromProcessEnvironment());
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  RETURN_IF_ERROR(popdist::set_ipu_config(&cfg, env));
  RETURN_IF_ERROR(cfg.configure_ipu_system());
  ASSIGN_OR_RETURN(distributed::MpiCommunicator * mpi, distributed::MpiCommunicator::Get());

  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  const float own = env.instance_index + 1.f;
  VariableScope vs(ipu, "model");
  ASSIGN_OR_RETURN(Variable w, vs.get_variable("w", {3}, DT_FLOAT,
                                               initializers::Value(Tensor::FromVector<float>(
                                                   {own, 2 * own, 3 * own}, TensorShape({3})))));
  ASSIGN_OR_RETURN(std::vector<Output> step,
                   ipu::ipu_compiler::compile(
                       ipu, [&](const Scope& s, const std::vector<Output>&) {
                         Output replicas = ipu::ops::cross_replica_sum(s, ops::Const(s, 1.f));
                         Operation add = w.assign_add(s, ops::Fill(s, ops::Const(s, {3}), replicas));
                         return std::vector<Output>{
                             ops::Identity(s.WithControlDependencies({add}), replicas)};
                       }, {}));
  Operation init = global_variables_initializer(root);
  ASSIGN_OR_RETURN(distributed::VariableBroadcast broadcast,
                   distributed::VariableBroadcast::Create(root, {w}));
  RETURN_IF_ERROR(root.status());
  ClientSession session(root);
  RETURN_IF_ERROR(session.Run({}, {}, {init}, nullptr));
  RETURN_IF_ERROR(broadcast.Run(session, *mpi));
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session.Run({w.value(root)}, &out));
  const std::vector<float> after_broadcast = Values(out[0]);
  RETURN_IF_ERROR(session.Run({step[0]}, &out));
  RETURN_IF_ERROR(session.Run({w.value(root)}, &out));
  const std::vector<float> after_step = Values(out[0]);
  const float total = env.num_total_replicas;
  const std::string line =
      absl::StrCat("instance ", env.instance_index, ": after broadcast ",
                   absl::StrJoin(after_broadcast, " "), " after step ",
                   absl::StrJoin(after_step, " "));
  if (after_broadcast != std::vector<float>{1, 2, 3} ||
      after_step != std::vector<float>{1 + total, 2 + total, 3 + total}) {
    return absl::InternalError(line);
  }
  std::cout << line << std::endl;
  return absl::OkStatus();
}

}  // namespace
}  // namespace tensorflow_ipu

int main() {
  absl::Status s = tensorflow_ipu::Main();
  if (!s.ok()) {
    std::cerr << "broadcast_program: " << s << std::endl;
    return 1;
  }
  return 0;
}
