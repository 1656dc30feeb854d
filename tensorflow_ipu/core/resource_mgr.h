// ResourceManager: a session's resource variables, by shared name.
//
// VarHandleOp names a variable; the first kernel that touches the name
// creates it, uninitialised, with the handle's dtype and shape. A later
// handle with the same name but another dtype or shape is an error, so two
// graphs cannot silently share a variable they disagree about.
//
//   ResourceManager rm;
//   ASSIGN_OR_RETURN(std::shared_ptr<Var> v, rm.LookupOrCreate(handle));
#ifndef TENSORFLOW_IPU_CORE_RESOURCE_MGR_H_
#define TENSORFLOW_IPU_CORE_RESOURCE_MGR_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/core/resource_handle.h"
#include "tensorflow_ipu/core/resource_var.h"

namespace tensorflow_ipu {

class ResourceManager {
 public:
  // InvalidArgument if `handle` names an existing variable with another
  // dtype or shape.
  absl::StatusOr<std::shared_ptr<Var>> LookupOrCreate(
      const ResourceHandle& handle);
  // NotFound naming the variable if no handle created it yet.
  absl::StatusOr<std::shared_ptr<Var>> Lookup(const std::string& name) const;
  // All variables, by name.
  std::vector<std::shared_ptr<Var>> Vars() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Var>> vars_ ABSL_GUARDED_BY(mu_);
};

// The handle in input `input` of a resource kernel, or InvalidArgument.
absl::StatusOr<const ResourceHandle*> HandleFromInput(const Tensor& input);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_RESOURCE_MGR_H_
