// train::CheckpointInstances over Open MPI: how Saver and
// latest_checkpoint reach the other instances of a poprun job, so that
// only instance 0 reads and writes checkpoint files
// (train/checkpoint_instances.h). popdist::set_ipu_config installs it.
#ifndef TENSORFLOW_IPU_DISTRIBUTED_MPI_CHECKPOINT_INSTANCES_H_
#define TENSORFLOW_IPU_DISTRIBUTED_MPI_CHECKPOINT_INSTANCES_H_

#include <string>

#include "tensorflow_ipu/distributed/mpi_communicator.h"
#include "tensorflow_ipu/train/checkpoint_instances.h"

namespace tensorflow_ipu {
namespace distributed {

class MpiCheckpointInstances : public train::CheckpointInstances {
 public:
  explicit MpiCheckpointInstances(MpiCommunicator* mpi) : mpi_(mpi) {}
  int num_instances() const override { return mpi_->size(); }
  int instance_index() const override { return mpi_->rank(); }
  absl::Status BroadcastFromFirst(absl::Span<char> buffer, const std::string& what) override {
    return mpi_->Broadcast(buffer, /*root=*/0, what);
  }

 private:
  MpiCommunicator* mpi_;  // process-wide, never destroyed
};

}  // namespace distributed
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DISTRIBUTED_MPI_CHECKPOINT_INSTANCES_H_
