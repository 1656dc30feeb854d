// poplar_sim's CrossInstanceExchange over Open MPI: how the cross-replica
// reductions of a simulated engine reach the replicas of the other
// processes (poplar_sim/replica_subset.h). An all-gather of every replica's
// values, in instance (= global replica) order; the engine reduces them.
#ifndef TENSORFLOW_IPU_DISTRIBUTED_MPI_EXCHANGE_H_
#define TENSORFLOW_IPU_DISTRIBUTED_MPI_EXCHANGE_H_

#include <string>

#include "poplar_sim/replica_subset.h"
#include "tensorflow_ipu/distributed/mpi_communicator.h"

namespace tensorflow_ipu {
namespace distributed {

class MpiExchange : public poplar_sim::CrossInstanceExchange {
 public:
  explicit MpiExchange(MpiCommunicator* mpi) : mpi_(mpi) {}
  absl::Status allGather(absl::Span<const char> local, absl::Span<char> global,
                         const std::string& what) override {
    return mpi_->AllGather(local, global, what);
  }

 private:
  MpiCommunicator* mpi_;  // process-wide, never destroyed
};

}  // namespace distributed
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DISTRIBUTED_MPI_EXCHANGE_H_
