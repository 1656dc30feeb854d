// Var: the state of one resource variable in a session, shared by the CPU
// kernels and the IPU runtime.
//
// The value has a host copy and, while an IPU executable holds the variable
// in device memory, a device copy. `host_valid` says whether the host copy
// is current; `holder` is the device copy's owner, which can bring the value
// home (VarDeviceHolder::CopyToHost). Host readers call Read, which fetches
// from the device only when the host copy is stale, so a variable that stays
// on the IPU moves over the host link only when someone on the host asks.
//
//   ASSIGN_OR_RETURN(Tensor w, var->Read());       // FailedPrecondition if
//                                                  // never assigned
//   RETURN_IF_ERROR(var->Assign(new_value));       // dtype and shape checked
//   RETURN_IF_ERROR(var->Update([](Tensor* v) { ...; return absl::OkStatus(); }));
//
// Locking: `mu` guards the fields below. The IPU runtime takes its device
// lock before `mu`, never after, and CopyToHost takes the device lock: so
// host code never holds `mu` while calling CopyToHost.
#ifndef TENSORFLOW_IPU_CORE_RESOURCE_VAR_H_
#define TENSORFLOW_IPU_CORE_RESOURCE_VAR_H_

#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {

class Var;

// Implemented by whatever keeps variables in device memory (the IPU
// runtime's executables).
class VarDeviceHolder {
 public:
  virtual ~VarDeviceHolder() = default;
  // Makes `var`'s host copy current from the device copy, if `var`'s holder
  // is still this one. Called without `var->mu` held.
  virtual absl::Status CopyToHost(Var* var) = 0;
};

class Var {
 public:
  Var(std::string name, DataType dtype, TensorShape shape)
      : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)) {}
  Var(const Var&) = delete;
  Var& operator=(const Var&) = delete;

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }

  bool IsInitialized() const;
  // The current value, sharing its buffer: while the returned Tensor (or a
  // copy of it) lives, updates write a new buffer instead. FailedPrecondition naming the variable if it was never assigned.
  absl::StatusOr<Tensor> Read();
  // Sets the value. InvalidArgument if dtype or shape differ from the
  // variable's. Any device copy becomes stale.
  absl::Status Assign(const Tensor& value);
  // Replaces the value with what `fn` makes of it (AssignAdd and friends),
  // atomically with respect to other host updates. When no read shares the
  // value's buffer, `fn` gets the only reference (value->RefCountIsOne())
  // and may write it in place.
  absl::Status Update(const std::function<absl::Status(Tensor* value)>& fn);
  // Brings the value home if a device holds the only current copy.
  absl::Status EnsureOnHost();

  // For VarDeviceHolders (with the device lock held, then mu).
  absl::Mutex* mu() const ABSL_LOCK_RETURNED(mu_) { return &mu_; }
  bool initialized_locked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return initialized_;
  }
  bool host_valid_locked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return host_valid_;
  }
  const Tensor& host_value_locked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return value_;
  }
  VarDeviceHolder* holder_locked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return holder_;
  }
  // The device copy of `holder` is now current; the host copy stays valid
  // only if the device did not change the value.
  void SetDeviceCopyLocked(VarDeviceHolder* holder, bool host_still_valid)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The holder copied the value home: `value` is current, on both sides.
  void SetHostValueLocked(Tensor value) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The holder goes away: forget the device copy (the host copy must be
  // current first).
  void DropDeviceCopyLocked(VarDeviceHolder* holder)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

 private:
  absl::Status CheckValue(const Tensor& value) const;
  absl::Status UninitializedError() const;

  const std::string name_;
  const DataType dtype_;
  const TensorShape shape_;
  mutable absl::Mutex mu_;
  bool initialized_ ABSL_GUARDED_BY(mu_) = false;
  bool host_valid_ ABSL_GUARDED_BY(mu_) = true;
  Tensor value_ ABSL_GUARDED_BY(mu_);
  VarDeviceHolder* holder_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_RESOURCE_VAR_H_
