#include "tensorflow_ipu/runtime/ipu_variable_residency.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

// Device id -> the residency of the engine loaded on it.
absl::flat_hash_map<uint64_t, EngineResidency*>& LoadedEngines()
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(IpuDeviceMutex()) {
  static auto* loaded = new absl::flat_hash_map<uint64_t, EngineResidency*>;
  return *loaded;
}

bool IsGlobalStep(const std::string& name) {
  return name == "global_step" || absl::EndsWith(name, "/global_step");
}

}  // namespace

absl::Mutex& IpuDeviceMutex() {
  static absl::Mutex* mu = new absl::Mutex;
  return *mu;
}

EngineResidency::EngineResidency(compiler::CompiledCluster* compiled,
                                 std::string cluster_name)
    : compiled_(compiled), cluster_name_(std::move(cluster_name)) {}

EngineResidency::~EngineResidency() {
  absl::MutexLock lock(&IpuDeviceMutex());
  uint64_t bytes = 0;
  // Errors here cannot be returned; a failed read leaves the variable
  // marked as held by nobody with its last host value.
  (void)SaveAndDrop(&bytes);
  auto it = LoadedEngines().find(device_id_);
  if (it != LoadedEngines().end() && it->second == this) LoadedEngines().erase(it);
}

bool EngineResidency::UpdatesGlobalStep() const {
  for (const compiler::ResourceBinding& b : compiled_->resources()) {
    if (b.written && IsGlobalStep(b.name)) return true;
  }
  return false;
}

absl::Status EngineResidency::CopyToHost(Var* var) {
  absl::MutexLock lock(&IpuDeviceMutex());
  uint64_t bytes = 0;
  return CopyToHostLocked(var, &bytes);
}

absl::Status EngineResidency::CopyToHostLocked(Var* var, uint64_t* bytes) {
  for (size_t k = 0; k < vars_.size(); ++k) {
    if (vars_[k].get() != var) continue;
    absl::MutexLock lock(var->mu());
    if (var->holder_locked() != this || var->host_valid_locked()) {
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor value, compiled_->ReadResource(static_cast<int>(k)));
    *bytes += value.TotalBytes();
    var->SetHostValueLocked(std::move(value));
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status EngineResidency::SaveAndDrop(uint64_t* bytes) {
  absl::Status status;
  for (const std::shared_ptr<Var>& var : vars_) {
    status.Update(CopyToHostLocked(var.get(), bytes));
    absl::MutexLock lock(var->mu());
    var->DropDeviceCopyLocked(this);
  }
  return status;
}

absl::StatusOr<VariableTransfers> EngineResidency::PrepareRun(
    poplar_sim::Device& device, ResourceManager& resources) {
  VariableTransfers t;
  const std::vector<compiler::ResourceBinding>& bindings = compiled_->resources();
  if (vars_.empty()) {
    for (const compiler::ResourceBinding& b : bindings) {
      ASSIGN_OR_RETURN(std::shared_ptr<Var> var,
                       resources.LookupOrCreate({b.name, b.dtype, b.shape}));
      vars_.push_back(std::move(var));
    }
  }
  device_id_ = device.getId();
  if (device.loadedEngineId() != compiled_->engine().getId()) {
    auto it = LoadedEngines().find(device_id_);
    if (it != LoadedEngines().end() && it->second != this) {
      EngineResidency* outgoing = it->second;
      t.outgoing_cluster = outgoing->cluster_name_;
      t.involves_global_step =
          outgoing->UpdatesGlobalStep() || UpdatesGlobalStep();
      RETURN_IF_ERROR(outgoing->SaveAndDrop(&t.bytes_saved));
    }
    t.switched = device.loadedEngineId() != 0;
    t.reloaded = t.switched && ever_loaded_;
    // Our own device copies went when our engine was replaced.
    for (const std::shared_ptr<Var>& var : vars_) {
      absl::MutexLock lock(var->mu());
      if (var->holder_locked() == this) var->DropDeviceCopyLocked(this);
    }
    LoadedEngines()[device_id_] = this;
    ever_loaded_ = true;
  }
  for (size_t k = 0; k < vars_.size(); ++k) {
    Var* var = vars_[k].get();
    // A cluster that overwrites the variable before reading it (an
    // initializer) needs no value: nothing is written to the device.
    if (!bindings[k].reads_initial_value) continue;
    VarDeviceHolder* holder;
    {
      absl::MutexLock lock(var->mu());
      if (!var->initialized_locked()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "Attempting to use uninitialized value ", var->name(),
            " in IPU cluster ", cluster_name_,
            ": run its initializer (or global_variables_initializer) first, "
            "or restore it from a checkpoint"));
      }
      if (var->holder_locked() == this) continue;  // resident: nothing moves
      holder = var->host_valid_locked() ? nullptr : var->holder_locked();
    }
    if (holder != nullptr) {
      // Another engine (on another device) has the only current copy.
      RETURN_IF_ERROR(static_cast<EngineResidency*>(holder)->CopyToHostLocked(
          var, &t.bytes_saved));
    }
    absl::MutexLock lock(var->mu());
    RETURN_IF_ERROR(
        compiled_->WriteResource(static_cast<int>(k), var->host_value_locked()));
    t.bytes_restored += var->host_value_locked().TotalBytes();
    var->SetDeviceCopyLocked(this, /*host_still_valid=*/true);
  }
  const poplar_sim::Target& target = compiled_->engine().getTarget();
  for (uint64_t bytes : {t.bytes_saved, t.bytes_restored}) {
    if (bytes > 0) {
      t.seconds += target.cyclesToSeconds(target.hostTransferCycles(bytes));
    }
  }
  return t;
}

void EngineResidency::FinishRun() {
  const std::vector<compiler::ResourceBinding>& bindings = compiled_->resources();
  for (size_t k = 0; k < vars_.size(); ++k) {
    if (!bindings[k].written) continue;
    absl::MutexLock lock(vars_[k]->mu());
    vars_[k]->SetDeviceCopyLocked(this, /*host_still_valid=*/false);
  }
}

}  // namespace tensorflow_ipu
