// Initial values from instance 0: after the variables are initialised,
// every instance takes instance 0's values, so the replicas of a
// multi-process job start identical whatever each process's initialisers
// did (random ones differ per process). The vendor's PopDistStrategy wraps
// initialisers in a broadcast from rank 0 (Horovod's
// broadcast_global_variables(0)); here it is one step after the
// initialiser, built with the graph and run once.
//
//   ASSIGN_OR_RETURN(VariableBroadcast broadcast,
//                    VariableBroadcast::Create(root, {w1, w2}));
//   ClientSession session(root);
//   RETURN_IF_ERROR(session.Run({}, {}, {init}, nullptr));
//   RETURN_IF_ERROR(broadcast.Run(session, mpi));
#ifndef TENSORFLOW_IPU_DISTRIBUTED_BROADCAST_VARIABLES_H_
#define TENSORFLOW_IPU_DISTRIBUTED_BROADCAST_VARIABLES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/cc/variables/variable.h"
#include "tensorflow_ipu/distributed/mpi_communicator.h"

namespace tensorflow_ipu {
namespace distributed {

class VariableBroadcast {
 public:
  // Adds, for each variable, a read, a placeholder of its dtype and shape
  // and an assign from it. InvalidArgument for an invalid variable or a
  // string one (its values are not a flat buffer).
  static absl::StatusOr<VariableBroadcast> Create(const Scope& root,
                                                  std::vector<Variable> variables);

  // Reads the variables on instance 0, sends their values to every
  // instance and assigns them there (instance 0's stay as they are). Every
  // instance must call it (a collective: an instance that does not is
  // named by the timeout).
  absl::Status Run(const ClientSession& session, MpiCommunicator& mpi) const;

 private:
  struct Entry {
    Variable variable;
    Output read;
    Output placeholder;
    Operation assign;
  };
  std::vector<Entry> entries_;
};

}  // namespace distributed
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DISTRIBUTED_BROADCAST_VARIABLES_H_
