#include "tensorflow_ipu/core/resource_var.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {

bool Var::IsInitialized() const {
  absl::MutexLock lock(&mu_);
  return initialized_;
}

absl::Status Var::UninitializedError() const {
  return absl::FailedPreconditionError(absl::StrCat(
      "Attempting to use uninitialized value ", name_,
      ": run its initializer (or global_variables_initializer) first, or "
      "restore it from a checkpoint"));
}

absl::Status Var::CheckValue(const Tensor& value) const {
  if (value.dtype() != dtype_ || value.shape() != shape_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot assign a value of type ", DataTypeString(value.dtype()),
        " and shape ", value.shape().DebugString(), " to variable ", name_,
        " of type ", DataTypeString(dtype_), " and shape ",
        shape_.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status Var::EnsureOnHost() {
  // The holder may change between attempts (another run moved the value):
  // retry until the host copy is current.
  for (;;) {
    VarDeviceHolder* holder;
    {
      absl::MutexLock lock(&mu_);
      if (!initialized_) return UninitializedError();
      if (host_valid_) return absl::OkStatus();
      holder = holder_;
    }
    if (holder == nullptr) {
      return absl::DataLossError(absl::StrCat(
          "The value of variable ", name_,
          " was lost: the device that held it failed to return it"));
    }
    RETURN_IF_ERROR(holder->CopyToHost(this));
  }
}

absl::StatusOr<Tensor> Var::Read() {
  for (;;) {
    RETURN_IF_ERROR(EnsureOnHost());
    absl::MutexLock lock(&mu_);
    if (host_valid_) return value_;  // else a device run got in between
  }
}

absl::Status Var::Assign(const Tensor& value) {
  RETURN_IF_ERROR(CheckValue(value));
  absl::MutexLock lock(&mu_);
  value_ = value;
  initialized_ = true;
  host_valid_ = true;
  holder_ = nullptr;  // the device copy is stale now
  return absl::OkStatus();
}

absl::Status Var::Update(const std::function<absl::Status(Tensor* value)>& fn) {
  for (;;) {
    RETURN_IF_ERROR(EnsureOnHost());
    absl::MutexLock lock(&mu_);
    if (!host_valid_) continue;  // a device run got in between
    // Moved, not copied, when nothing else holds the buffer: fn may then
    // update it in place.
    const bool exclusive = value_.RefCountIsOne();
    Tensor value = exclusive ? std::move(value_) : value_;
    absl::Status s = fn(&value);
    if (s.ok()) s = CheckValue(value);
    if (!s.ok()) {
      if (exclusive) value_ = std::move(value);
      return s;
    }
    value_ = std::move(value);
    holder_ = nullptr;
    return absl::OkStatus();
  }
}

void Var::SetDeviceCopyLocked(VarDeviceHolder* holder, bool host_still_valid) {
  holder_ = holder;
  host_valid_ = host_still_valid;
  initialized_ = true;
}

void Var::SetHostValueLocked(Tensor value) {
  value_ = std::move(value);
  host_valid_ = true;
}

void Var::DropDeviceCopyLocked(VarDeviceHolder* holder) {
  if (holder_ == holder) holder_ = nullptr;
}

}  // namespace tensorflow_ipu
