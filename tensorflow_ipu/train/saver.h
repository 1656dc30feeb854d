// Saver: saves a graph's variables to a checkpoint and restores them into a
// session, as TensorFlow 1's tf.train.Saver.
//
//   train::Saver saver(root);                            // global variables
//   RETURN_IF_ERROR(saver.save(session, "/tmp/run/model.ckpt"));
//   ...                                                  // later, elsewhere:
//   ClientSession fresh(root);
//   RETURN_IF_ERROR(saver.restore(fresh, "/tmp/run/model.ckpt"));
//   RETURN_IF_ERROR(fresh.Run({}, {}, {train_op}, nullptr));  // no initializer
//
// Tensors in the checkpoint are keyed by variable name ("vs/w",
// "global_step"), so a rebuilt identical graph in another process restores
// what this one saved. The file format and its guarantees (per-tensor
// checksums, crash-safe commit) are io/checkpoint.h's.
//
// save reads each variable's current value from the session: a value that
// lives on an IPU is brought home over the host link first (and stays
// resident on the device). restore checks every variable against the
// checkpoint before changing any, then assigns the values, creating the
// variables in the session if it never ran them; a device copy becomes
// stale and the next run on the IPU loads the restored value. Neither runs
// anything in the graph, so both work on a session that has not run yet.
//
// Saving with a global step, as training loops do, keeps a directory of
// numbered checkpoints with TensorFlow's state file (checkpoint_management.h):
//
//   ASSIGN_OR_RETURN(std::string path, saver.save(session, "/tmp/run/model.ckpt", step));
//   // path == "/tmp/run/model.ckpt-<step>"; /tmp/run/checkpoint names it
//   ASSIGN_OR_RETURN(std::optional<std::string> latest, train::latest_checkpoint("/tmp/run"));
#ifndef TENSORFLOW_IPU_TRAIN_SAVER_H_
#define TENSORFLOW_IPU_TRAIN_SAVER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/cc/variables/variable.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/train/checkpoint_instances.h"

namespace tensorflow_ipu {
namespace train {

class Saver {
 public:
  // Saves `var_list`, or when it is empty every global variable of
  // `scope`'s graph as of now (variables created later, such as an
  // optimizer's slots, are not included: make the Saver after minimize).
  // A graph without variables, or a name given twice, makes save and
  // restore return InvalidArgument.
  // `max_to_keep`: how many of the checkpoints saved with a global step are
  // kept (TensorFlow's default, 5); the oldest beyond it are deleted. 0 or
  // less keeps them all.
  explicit Saver(const Scope& scope, std::vector<Variable> var_list = {},
                 int max_to_keep = 5);

  // Writes the variables' values in `session` to the checkpoint `prefix`
  // (replacing it). FailedPrecondition naming a variable the session has
  // no value for (never initialised nor restored); errors of
  // WriteCheckpoint otherwise. On error the previous checkpoint is intact.
  // Touches no state file.
  absl::Status save(const ClientSession& session, const std::string& prefix) const;

  // TensorFlow's saver.save(sess, save_path, global_step=step): writes the
  // checkpoint "<save_path>-<global_step>" and returns that prefix, records
  // it as the latest in the state file of save_path's directory, and then
  // deletes the oldest checkpoints beyond max_to_keep (of those this Saver
  // saved or was told of by recover_last_checkpoints). Errors of save and
  // update_checkpoint_state; on error the kept checkpoints are unchanged.
  absl::StatusOr<std::string> save(const ClientSession& session,
                                   const std::string& save_path, int64_t global_step);

  // Adopts checkpoints saved earlier (a state file's
  // all_model_checkpoint_paths, oldest first) as this Saver's own, so that a
  // restarted run keeps counting them towards max_to_keep. Paths whose
  // checkpoint no longer exists are dropped.
  void recover_last_checkpoints(const std::vector<std::string>& checkpoint_paths);

  // The checkpoints kept, oldest first.
  std::vector<std::string> last_checkpoints() const;

  // Sets the variables in `session` to the checkpoint's values. NotFound if
  // there is no checkpoint, or if it lacks a variable (listing what it has);
  // InvalidArgument naming the variable and both dtypes or shapes if they
  // differ; DataLoss naming the tensor if the checkpoint is damaged. On
  // error no variable has changed.
  absl::Status restore(const ClientSession& session, const std::string& prefix) const;

  // The variables saved and restored.
  const std::vector<Variable>& var_list() const { return vars_; }

  // In a job of several processes (tools/poprun, with
  // distributed::popdist::set_ipu_config) only instance 0 reads and writes
  // checkpoint files: save writes on instance 0 and every instance returns
  // its outcome; restore reads on instance 0 and gives every instance its
  // values, so the files need exist only where instance 0 runs
  // (checkpoint_instances.h). Every instance must call them at the same
  // point of the program, as the instances of such a job do.

 private:
  // Writes the checkpoint from this process's session.
  absl::Status SaveHere(const ClientSession& session, const std::string& prefix) const;
  // SaveHere, then the state file and max_to_keep.
  absl::Status SaveNumberedHere(const ClientSession& session, const std::string& save_path,
                                const std::string& prefix);
  // The checkpoint's value of each variable of vars_, in order, checked.
  absl::StatusOr<std::vector<Tensor>> ReadHere(const std::string& prefix) const;
  // The same, read by instance 0 and sent to the others.
  absl::StatusOr<std::vector<Tensor>> ReadOnFirst(CheckpointInstances& instances,
                                                  const std::string& prefix) const;
  // The checkpoints kept once `prefix` is saved, and those to delete.
  std::pair<std::vector<std::pair<std::string, double>>, std::vector<std::string>> KeptAfter(
      const std::string& prefix) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Status status_;
  std::vector<Variable> vars_;
  int max_to_keep_;
  mutable absl::Mutex mu_;
  // (prefix, seconds since the epoch when saved), oldest first.
  std::vector<std::pair<std::string, double>> last_checkpoints_ ABSL_GUARDED_BY(mu_);
};

}  // namespace train
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_TRAIN_SAVER_H_
