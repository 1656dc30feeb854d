#include "tensorflow_ipu/core/resource_mgr.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

uint64_t NextManagerId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

ResourceManager::ResourceManager() : id_(NextManagerId()) {}

ResourceManager::~ResourceManager() {
  // Other state first, while every variable still exists: see resources_.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<ResourceBase>>
      resources;
  {
    absl::MutexLock lock(&mu_);
    resources.swap(resources_);
  }
  resources.clear();
}

absl::Status ResourceManager::WrongType(const std::string& container,
                                        const std::string& name) const {
  return absl::InvalidArgumentError(absl::StrCat(
      "Resource ", container, "/", name,
      " exists with another type than the one asked for"));
}

absl::StatusOr<std::shared_ptr<Var>> ResourceManager::LookupOrCreate(
    const ResourceHandle& handle) {
  absl::MutexLock lock(&mu_);
  auto it = vars_.find(handle.name);
  if (it == vars_.end()) {
    auto var = std::make_shared<Var>(handle.name, handle.dtype, handle.shape);
    vars_.emplace(handle.name, var);
    return var;
  }
  const Var& v = *it->second;
  if (v.dtype() != handle.dtype || v.shape() != handle.shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Variable ", handle.name, " exists with type ", DataTypeString(v.dtype()),
        " and shape ", v.shape().DebugString(), ", but a handle asks for type ",
        DataTypeString(handle.dtype), " and shape ", handle.shape.DebugString(),
        "; give the variables different names"));
  }
  return it->second;
}

absl::StatusOr<std::shared_ptr<Var>> ResourceManager::Lookup(
    const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = vars_.find(name);
  if (it == vars_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "Resource variable ", name, " does not exist in this session"));
  }
  return it->second;
}

std::vector<std::shared_ptr<Var>> ResourceManager::Vars() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<Var>> out;
  for (const auto& [name, var] : vars_) out.push_back(var);
  return out;
}

absl::StatusOr<const ResourceHandle*> HandleFromInput(const Tensor& input) {
  if (input.dtype() != DT_RESOURCE || input.resource_handle() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a resource handle (the output of VarHandleOp), got ",
        input.SummaryString()));
  }
  return input.resource_handle();
}

CachedVarLookup::~CachedVarLookup() { delete entry_.load(std::memory_order_acquire); }

absl::StatusOr<std::shared_ptr<Var>> CachedVarLookup::LookupOrCreate(
    ResourceManager* resources, const ResourceHandle& handle) {
  if (resources == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Variable ", handle.name, " looked up without a resource manager: run it in a session"));
  }
  const Entry* e = entry_.load(std::memory_order_acquire);
  if (e != nullptr && e->manager_id == resources->id() && e->handle.name == handle.name &&
      e->handle.dtype == handle.dtype && e->handle.shape == handle.shape) {
    return e->var;
  }
  ASSIGN_OR_RETURN(std::shared_ptr<Var> var, resources->LookupOrCreate(handle));
  if (e == nullptr) {
    auto* fresh = new Entry{resources->id(), handle, var};
    const Entry* expected = nullptr;
    if (!entry_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
      delete fresh;  // another thread remembered its lookup first
    }
  }
  return var;
}

}  // namespace tensorflow_ipu
