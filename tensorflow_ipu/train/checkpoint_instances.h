// Checkpoints in a multi-process job (tools/poprun): the instances run the
// same program, so each reaches every Saver::save, Saver::restore and
// latest_checkpoint at the same point. Instance 0 alone touches the files:
// it writes the checkpoints, and reads them for everyone; the others get
// its outcome (and, for a restore, its values) over the job's network. So a
// job on several hosts needs its checkpoints only where instance 0 runs,
// and every instance restores the same values, as the vendor's users
// arrange by hand ("only instance 0 saves"; initial values broadcast from
// instance 0).
//
// This file is the seam between train/ and whatever connects the
// instances: distributed::popdist::set_ipu_config installs an Open MPI
// implementation for the process; without one (a single process) Saver
// and latest_checkpoint work on the files directly.
#ifndef TENSORFLOW_IPU_TRAIN_CHECKPOINT_INSTANCES_H_
#define TENSORFLOW_IPU_TRAIN_CHECKPOINT_INSTANCES_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace tensorflow_ipu {
namespace train {

class CheckpointInstances {
 public:
  virtual ~CheckpointInstances() = default;
  virtual int num_instances() const = 0;
  virtual int instance_index() const = 0;
  // Every instance calls this with a buffer of the same size; afterwards
  // each holds instance 0's bytes. An instance that does not arrive is an
  // error naming it (DeadlineExceeded), never a hang. `what` names the
  // transfer in errors.
  virtual absl::Status BroadcastFromFirst(absl::Span<char> buffer, const std::string& what) = 0;
};

// The process's instances (nullptr, the default: a single process).
void SetCheckpointInstances(std::shared_ptr<CheckpointInstances> instances);
// nullptr unless a job of more than one instance was installed.
std::shared_ptr<CheckpointInstances> GetCheckpointInstances();

// Every instance gets instance 0's `outcome` (what the others pass is
// ignored): OK on all, or instance 0's code and message, prefixed with
// "instance 0 (which reads and writes the job's checkpoints): " on the
// others. An error of the transfer itself is returned instead.
absl::Status ShareOutcomeOfFirst(CheckpointInstances& instances, const absl::Status& outcome,
                                 const std::string& what);
// Every instance gets instance 0's `value` (a path: nullopt, or a string
// of any length).
absl::StatusOr<std::optional<std::string>> ShareStringOfFirst(
    CheckpointInstances& instances, const std::optional<std::string>& value,
    const std::string& what);

}  // namespace train
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_TRAIN_CHECKPOINT_INSTANCES_H_
