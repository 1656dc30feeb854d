#include "tensorflow_ipu/core/resource_mgr.h"

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {

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

}  // namespace tensorflow_ipu
