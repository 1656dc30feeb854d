// ResourceManager: a session's resource variables, by shared name, and its
// other state that outlives one run (TensorFlow's ResourceMgr containers:
// here, for example, the IPU clusters a session compiled).
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

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/core/resource_handle.h"
#include "tensorflow_ipu/core/resource_var.h"

namespace tensorflow_ipu {

// Session state kept in a ResourceManager's containers.
class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
};

class ResourceManager {
 public:
  ResourceManager();
  ResourceManager(const ResourceManager&) = delete;
  ResourceManager& operator=(const ResourceManager&) = delete;
  ~ResourceManager();

  // InvalidArgument if `handle` names an existing variable with another
  // dtype or shape.
  absl::StatusOr<std::shared_ptr<Var>> LookupOrCreate(
      const ResourceHandle& handle);
  // NotFound naming the variable if no handle created it yet.
  absl::StatusOr<std::shared_ptr<Var>> Lookup(const std::string& name) const;
  // Distinct for every manager a process creates (an address may be reused
  // by a later one).
  uint64_t id() const { return id_; }
  // All variables, by name.
  std::vector<std::shared_ptr<Var>> Vars() const;

  // Resource `name` of `container`, made by `create` if it does not exist
  // yet (`create` must not use this manager). InvalidArgument naming both
  // when it exists with another type.
  template <typename T>
  absl::StatusOr<std::shared_ptr<T>> LookupOrCreate(
      const std::string& container, const std::string& name,
      const std::function<std::shared_ptr<T>()>& create);
  // NotFound naming both when it does not exist; InvalidArgument when it
  // has another type.
  template <typename T>
  absl::StatusOr<std::shared_ptr<T>> Lookup(const std::string& container,
                                            const std::string& name) const;

 private:
  absl::Status WrongType(const std::string& container,
                         const std::string& name) const;

  const uint64_t id_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Var>> vars_ ABSL_GUARDED_BY(mu_);
  // Declared after the variables so that it goes first: state such as an
  // IPU executable holding variables brings them home when it is destroyed.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<ResourceBase>>
      resources_ ABSL_GUARDED_BY(mu_);
};

// A kernel's lookup of the variable its handle names, remembered. A
// manager never removes a variable, so once found, a name in a manager is
// the same Var for the manager's life: later lookups of the same handle
// need no lock and no map search (about 70 ns each, fifteen times in a
// training step of the benchmark MLP). Remembers the first handle looked
// up; other handles (a kernel fed several) take the manager's path. Safe
// to use from several threads at once.
class CachedVarLookup {
 public:
  CachedVarLookup() = default;
  CachedVarLookup(const CachedVarLookup&) = delete;
  CachedVarLookup& operator=(const CachedVarLookup&) = delete;
  ~CachedVarLookup();

  // resources->LookupOrCreate(handle), with its errors; FailedPrecondition
  // for a null `resources`.
  absl::StatusOr<std::shared_ptr<Var>> LookupOrCreate(ResourceManager* resources,
                                                      const ResourceHandle& handle);

 private:
  struct Entry {
    uint64_t manager_id;
    ResourceHandle handle;
    std::shared_ptr<Var> var;
  };
  std::atomic<const Entry*> entry_{nullptr};  // set once, owned
};

template <typename T>
absl::StatusOr<std::shared_ptr<T>> ResourceManager::LookupOrCreate(
    const std::string& container, const std::string& name,
    const std::function<std::shared_ptr<T>()>& create) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<ResourceBase>& slot = resources_[{container, name}];
  if (slot == nullptr) slot = create();
  std::shared_ptr<T> typed = std::dynamic_pointer_cast<T>(slot);
  if (typed == nullptr) return WrongType(container, name);
  return typed;
}

template <typename T>
absl::StatusOr<std::shared_ptr<T>> ResourceManager::Lookup(
    const std::string& container, const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = resources_.find({container, name});
  if (it == resources_.end()) {
    return absl::NotFoundError("Resource " + container + "/" + name +
                               " does not exist in this session");
  }
  std::shared_ptr<T> typed = std::dynamic_pointer_cast<T>(it->second);
  if (typed == nullptr) return WrongType(container, name);
  return typed;
}

// The handle in input `input` of a resource kernel, or InvalidArgument.
absl::StatusOr<const ResourceHandle*> HandleFromInput(const Tensor& input);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_RESOURCE_MGR_H_
