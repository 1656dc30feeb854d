#include "tensorflow_ipu/cc/scope.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/core/device_name.h"

namespace tensorflow_ipu {

Scope Scope::NewRootScope() {
  Scope s;
  s.graph_ = std::make_shared<Graph>();
  s.status_ = std::make_shared<absl::Status>();
  return s;
}

Scope Scope::WithFreshStatus() const {
  Scope s = *this;
  s.status_ = std::make_shared<absl::Status>();
  return s;
}

Scope Scope::NewFunctionScope(std::shared_ptr<Graph> function_graph,
                              std::shared_ptr<ValueCapturer> capturer) const {
  Scope s;
  s.graph_ = std::move(function_graph);
  s.status_ = status_;
  s.capturer_ = std::move(capturer);
  // A loop body or branch stays in the caller's variable scope (TF1's).
  s.variable_prefix_ = variable_prefix_;
  return s;
}

Scope Scope::WithOpName(const std::string& name) const {
  Scope s = *this;
  s.op_name_ = name;
  return s;
}

Scope Scope::NewSubScope(const std::string& name) const {
  Scope s = *this;
  s.op_name_.clear();
  if (name.empty()) return s;
  std::string full = prefix_.empty() ? name : absl::StrCat(prefix_, "/", name);
  // Sub-scopes are uniquified like ops: "layer", then "layer_1".
  s.prefix_ = graph_->UniqueName(full);
  return s;
}

Scope Scope::WithAbsoluteNameScope(const std::string& prefix) const {
  Scope s = *this;
  s.op_name_.clear();
  s.prefix_ = prefix;
  s.variable_prefix_ = prefix;
  return s;
}

Scope Scope::WithVariableScope(const std::string& prefix) const {
  Scope s = *this;
  s.variable_prefix_ = prefix;
  return s;
}

Scope Scope::WithDevice(const std::string& device) const {
  Scope s = *this;
  absl::StatusOr<DeviceName> parsed = ParseDeviceName(device);
  if (!parsed.ok()) {
    UpdateStatus(parsed.status());
    return s;
  }
  s.device_ = device;
  return s;
}

Scope Scope::WithControlDependencies(const std::vector<Operation>& ops) const {
  Scope s = *this;
  s.control_deps_.insert(s.control_deps_.end(), ops.begin(), ops.end());
  return s;
}

Scope Scope::WithNoControlDependencies() const {
  Scope s = *this;
  s.control_deps_.clear();
  return s;
}

Scope Scope::WithAttr(const std::string& name, const AttrValue& value) const {
  Scope s = *this;
  s.attrs_[name] = value;
  return s;
}

Scope Scope::WithoutAttr(const std::string& name) const {
  Scope s = *this;
  s.attrs_.erase(name);
  return s;
}

Scope Scope::WithoutAttrs() const {
  Scope s = *this;
  s.attrs_.clear();
  return s;
}

const AttrValue* Scope::FindAttr(const std::string& name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}

void Scope::UpdateStatus(absl::Status s) const {
  if (status_->ok() && !s.ok()) *status_ = std::move(s);
}

absl::StatusOr<GraphDef> Scope::ToGraphDef() const {
  if (!ok()) return status();
  return graph_->ToGraphDef();
}

std::string Scope::GetUniqueNameForOp(const std::string& default_name) const {
  const std::string& base = op_name_.empty() ? default_name : op_name_;
  std::string full = prefix_.empty() ? base : absl::StrCat(prefix_, "/", base);
  return graph_->UniqueName(full);
}

}  // namespace tensorflow_ipu
