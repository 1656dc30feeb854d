#include "tensorflow_ipu/train/saver.h"

#include <sys/stat.h>

#include <chrono>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/io/checkpoint.h"
#include "tensorflow_ipu/io/durable_file.h"
#include "tensorflow_ipu/runtime/session.h"
#include "tensorflow_ipu/train/checkpoint_instances.h"
#include "tensorflow_ipu/train/checkpoint_management.h"

namespace tensorflow_ipu {
namespace train {

// What the instances' collectives are called, the same on every instance:
// each instance may name its own prefix (a directory of its own), and the
// collectives compare their descriptions across instances.
constexpr char kSaveCollective[] = "the save of a checkpoint";
constexpr char kRestoreCollective[] = "the restore of a checkpoint";
namespace {

// What the variable's kernels (VarHandleOp, VariableV2) key it by in the
// session's ResourceManager: its shared_name, or else its node name.
ResourceHandle HandleOf(const Variable& var) {
  ResourceHandle h;
  h.name = GetNodeAttr<std::string>(var.handle().node()->def(), "shared_name")
               .value_or("");
  if (h.name.empty()) h.name = var.name();
  h.dtype = var.dtype();
  h.shape = var.shape();
  return h;
}

// The session's variables. Variables live in the session, not in the
// graph, which is why a session that has not run yet can be restored into.
absl::StatusOr<ResourceManager*> ResourcesOf(const ClientSession& session,
                                             const char* what) {
  ResourceManager* resources = nullptr;
  absl::Status s = session.session()->LocalResourceManager(&resources);
  if (!s.ok() || resources == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Saver cannot ", what, " the variables of this session: ",
        s.ok() ? "it has no resources" : s.message()));
  }
  return resources;
}

absl::Status WithContext(const absl::Status& status, const std::string& context) {
  return absl::Status(status.code(), absl::StrCat(context, status.message()));
}

double SecondsSinceEpoch() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Saver::Saver(const Scope& scope, std::vector<Variable> var_list, int max_to_keep)
    : status_(scope.status()), vars_(std::move(var_list)), max_to_keep_(max_to_keep) {
  if (!status_.ok()) return;
  if (vars_.empty()) {
    absl::StatusOr<std::vector<Variable>> all =
        VariablesInCollection(scope, kGlobalVariablesCollection);
    if (!all.ok()) {
      status_ = all.status();
      return;
    }
    vars_ = *std::move(all);
    if (vars_.empty()) {
      status_ = absl::InvalidArgumentError(
          "No variables to save: the graph has none yet. Create the Saver "
          "after the variables (and after minimize, for optimizer slots)");
      return;
    }
  }
  std::set<std::string> names;
  for (const Variable& v : vars_) {
    if (!v.valid()) {
      status_ = absl::InvalidArgumentError(
          "Saver was given an invalid Variable (default-constructed or from a "
          "failed get_variable)");
      return;
    }
    if (!names.insert(v.name()).second) {
      status_ = absl::InvalidArgumentError(absl::StrCat(
          "Saver was given variable '", v.name(), "' twice; each name is one "
          "checkpoint entry"));
      return;
    }
  }
}

absl::Status Saver::save(const ClientSession& session,
                         const std::string& prefix) const {
  RETURN_IF_ERROR(status_);
  std::shared_ptr<CheckpointInstances> instances = GetCheckpointInstances();
  if (instances == nullptr) return SaveHere(session, prefix);
  const absl::Status outcome =
      instances->instance_index() == 0 ? SaveHere(session, prefix) : absl::OkStatus();
  return ShareOutcomeOfFirst(*instances, outcome,
                             kSaveCollective);
}

absl::Status Saver::SaveHere(const ClientSession& session, const std::string& prefix) const {
  ASSIGN_OR_RETURN(ResourceManager * resources, ResourcesOf(session, "save"));
  NamedTensors tensors;
  for (const Variable& v : vars_) {
    const std::string context = absl::StrCat(
        "Cannot save variable '", v.name(), "' to checkpoint '", prefix, "': ");
    const ResourceHandle handle = HandleOf(v);
    absl::StatusOr<std::shared_ptr<Var>> var = resources->Lookup(handle.name);
    if (!var.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          context, "this session holds no value for it; run its initializer "
                   "(or global_variables_initializer) or restore it first"));
    }
    // Brings the value home if an IPU holds the only current copy.
    absl::StatusOr<Tensor> value = (*var)->Read();
    if (!value.ok()) return WithContext(value.status(), context);
    if (value->dtype() != v.dtype() || value->shape() != v.shape()) {
      return absl::FailedPreconditionError(absl::StrCat(
          context, "the session's variable is ", DataTypeString(value->dtype()),
          " ", value->shape().DebugString(), " but the graph's is ",
          DataTypeString(v.dtype()), " ", v.shape().DebugString(),
          "; was the session made for another graph?"));
    }
    tensors.emplace(v.name(), *std::move(value));
  }
  return WriteCheckpoint(prefix, tensors);
}

absl::StatusOr<std::vector<Tensor>> Saver::ReadHere(const std::string& prefix) const {
  ASSIGN_OR_RETURN(NamedTensors checkpoint, ReadCheckpoint(prefix));
  std::vector<Tensor> values;
  for (const Variable& v : vars_) {
    ASSIGN_OR_RETURN(Tensor value, LookupCheckpointTensor(checkpoint, prefix, v.name(),
                                                          v.dtype(), v.shape()));
    values.push_back(std::move(value));
  }
  return values;
}

absl::StatusOr<std::vector<Tensor>> Saver::ReadOnFirst(CheckpointInstances& instances,
                                                       const std::string& prefix) const {
  const std::string what = kRestoreCollective;
  absl::StatusOr<std::vector<Tensor>> read = std::vector<Tensor>();
  if (instances.instance_index() == 0) read = ReadHere(prefix);
  RETURN_IF_ERROR(ShareOutcomeOfFirst(instances, read.status(), what));
  std::vector<Tensor> values = *std::move(read);
  for (size_t k = 0; k < vars_.size(); ++k) {
    const Variable& v = vars_[k];
    if (DataTypeSize(v.dtype()) == 0) {
      // Every instance refuses alike: the check depends on the graph only.
      return absl::UnimplementedError(absl::StrCat(
          "Cannot restore variable '", v.name(), "' of type ", DataTypeString(v.dtype()),
          " in a job of ", instances.num_instances(),
          " instances: only variables of fixed-size types travel from instance 0 to the "
          "others"));
    }
    if (instances.instance_index() != 0) values.emplace_back(v.dtype(), v.shape());
    Tensor& value = values[k];
    RETURN_IF_ERROR(instances.BroadcastFromFirst(
        absl::MakeSpan(static_cast<char*>(value.raw_data()), value.TotalBytes()),
        absl::StrCat(what, ", variable '", v.name(), "'")));
  }
  return values;
}

absl::Status Saver::restore(const ClientSession& session,
                            const std::string& prefix) const {
  RETURN_IF_ERROR(status_);
  ASSIGN_OR_RETURN(ResourceManager * resources, ResourcesOf(session, "restore"));
  // In a job of several instances only instance 0 reads the files; the
  // others get its values (checkpoint_instances.h).
  std::shared_ptr<CheckpointInstances> instances = GetCheckpointInstances();
  ASSIGN_OR_RETURN(std::vector<Tensor> values,
                   instances == nullptr ? ReadHere(prefix) : ReadOnFirst(*instances, prefix));
  // Everything is checked before anything is assigned, so a failed restore
  // leaves the session as it was.
  std::vector<std::pair<std::shared_ptr<Var>, Tensor>> assignments;
  for (size_t k = 0; k < vars_.size(); ++k) {
    const Variable& v = vars_[k];
    Tensor& value = values[k];
    absl::StatusOr<std::shared_ptr<Var>> var = resources->LookupOrCreate(HandleOf(v));
    if (!var.ok()) {
      return WithContext(var.status(), absl::StrCat("Cannot restore variable '",
                                                    v.name(), "' from checkpoint '",
                                                    prefix, "': "));
    }
    assignments.emplace_back(*std::move(var), std::move(value));
  }
  for (auto& [var, value] : assignments) {
    // Cannot fail: dtype and shape were checked against the handle above.
    RETURN_IF_ERROR(var->Assign(value));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Saver::save(const ClientSession& session,
                                        const std::string& save_path,
                                        int64_t global_step) {
  RETURN_IF_ERROR(status_);
  const std::string prefix = absl::StrCat(save_path, "-", global_step);
  std::shared_ptr<CheckpointInstances> instances = GetCheckpointInstances();
  if (instances == nullptr) {
    RETURN_IF_ERROR(SaveNumberedHere(session, save_path, prefix));
    return prefix;
  }
  // Instance 0 writes the checkpoint and the state file and deletes the
  // old ones; the others keep the same record of what is kept.
  const bool writes = instances->instance_index() == 0;
  const absl::Status outcome =
      writes ? SaveNumberedHere(session, save_path, prefix) : absl::OkStatus();
  RETURN_IF_ERROR(ShareOutcomeOfFirst(*instances, outcome,
                                      kSaveCollective));
  if (!writes) {
    absl::MutexLock lock(&mu_);
    last_checkpoints_ = KeptAfter(prefix).first;
  }
  return prefix;
}

std::pair<std::vector<std::pair<std::string, double>>, std::vector<std::string>>
Saver::KeptAfter(const std::string& prefix) const {
  std::vector<std::pair<std::string, double>> kept;
  for (const auto& entry : last_checkpoints_) {
    if (entry.first != prefix) kept.push_back(entry);  // saved again: now newest
  }
  kept.emplace_back(prefix, SecondsSinceEpoch());
  std::vector<std::string> doomed;
  while (max_to_keep_ > 0 && kept.size() > static_cast<size_t>(max_to_keep_)) {
    doomed.push_back(kept.front().first);
    kept.erase(kept.begin());
  }
  return {std::move(kept), std::move(doomed)};
}

absl::Status Saver::SaveNumberedHere(const ClientSession& session, const std::string& save_path,
                                     const std::string& prefix) {
  RETURN_IF_ERROR(SaveHere(session, prefix));
  absl::MutexLock lock(&mu_);
  // The new list first; this Saver's record changes only once the state
  // file says the same.
  auto [kept, doomed] = KeptAfter(prefix);
  std::vector<std::string> paths;
  std::vector<double> timestamps;
  for (const auto& [path, time] : kept) {
    paths.push_back(path);
    timestamps.push_back(time);
  }
  RETURN_IF_ERROR(update_checkpoint_state(DirName(save_path), prefix, paths, timestamps));
  last_checkpoints_ = std::move(kept);
  // Only after the state file stops naming them.
  for (const std::string& old : doomed) RETURN_IF_ERROR(remove_checkpoint(old));
  return absl::OkStatus();
}

void Saver::recover_last_checkpoints(const std::vector<std::string>& checkpoint_paths) {
  std::vector<std::pair<std::string, double>> recovered;
  for (const std::string& path : checkpoint_paths) {
    struct stat info;
    if (::stat(CheckpointIndexPath(path).c_str(), &info) != 0) continue;
    recovered.emplace_back(path, static_cast<double>(info.st_mtime));
  }
  absl::MutexLock lock(&mu_);
  last_checkpoints_ = std::move(recovered);
}

std::vector<std::string> Saver::last_checkpoints() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> paths;
  for (const auto& entry : last_checkpoints_) paths.push_back(entry.first);
  return paths;
}

}  // namespace train
}  // namespace tensorflow_ipu
