// Scope: where and how new ops are added to a graph.
//
// A Scope carries the graph being built, a name prefix, a variable-scope
// prefix, a device, control dependencies and internal attrs; every
// `With...` call returns a new Scope
// that shares the graph and the status. The status is sticky: the first
// error (an ill-shaped op, a malformed device string) is recorded, later
// builders become no-ops, and the user checks `scope.status()` once.
//
//   Scope root = Scope::NewRootScope();
//   Scope cpu = root.WithDevice("cpu");
//   auto a = ops::Placeholder(cpu.WithOpName("a"), DT_FLOAT);
//   auto sum = ops::Add(root, a, a);            // named "Add"
//   auto sum2 = ops::Add(root, a, a);           // named "Add_1"
//   if (!root.ok()) return root.status();
#ifndef TENSORFLOW_IPU_CC_SCOPE_H_
#define TENSORFLOW_IPU_CC_SCOPE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/proto/attr_value.pb.h"
#include "tensorflow_ipu/core/proto/graph.pb.h"

namespace tensorflow_ipu {

// How a scope that builds a function's graph (a while loop's body, a
// cond's branch) uses a value of an enclosing graph: the function captures
// it, taking it as an extra argument (ops::while_loop and ops::cond build
// the capturers).
class ValueCapturer {
 public:
  virtual ~ValueCapturer() = default;
  // The function graph's stand-in for `value`, a value of an enclosing
  // graph (the same stand-in each time).
  virtual absl::StatusOr<Output> Capture(const Output& value) = 0;
};

class Scope {
 public:
  // A scope over a new, empty graph.
  static Scope NewRootScope();

  // The next op built with this scope gets `name` (made unique if taken).
  Scope WithOpName(const std::string& name) const;
  // Names of ops built in the returned scope are prefixed with "name/" (a
  // name scope, TF1's tf.name_scope: made unique, "name_1" the second time).
  // Variables are not: get_variable names them by the variable scope
  // alone, as TF1's tf.get_variable ignores name scopes, so a model built
  // in two sub-scopes (two loop bodies, say) asks for the same variables.
  Scope NewSubScope(const std::string& name) const;
  // Names of ops built in the returned scope are prefixed with exactly
  // "prefix/" (not made unique; "" for the root), and so are variables
  // made with get_variable: for names that must be stable, as variables'
  // are ("vs/w" whenever "vs" is entered).
  Scope WithAbsoluteNameScope(const std::string& prefix) const;
  // Variables made with get_variable in the returned scope are named
  // "prefix/name" ("" for none); op names are unchanged. VariableScope sets
  // it (TF1's tf.variable_scope); users rarely need it.
  Scope WithVariableScope(const std::string& prefix) const;
  // Ops built in the returned scope request `device` ("cpu",
  // "/device:IPU:0", ...). A malformed name is recorded as an error.
  Scope WithDevice(const std::string& device) const;
  // Ops built in the returned scope run after `ops`.
  Scope WithControlDependencies(const std::vector<Operation>& ops) const;
  Scope WithNoControlDependencies() const;
  // Ops built in the returned scope carry the attr `name` (an internal attr,
  // starting with '_', used by the IPU layer for shards and clusters).
  Scope WithAttr(const std::string& name, const AttrValue& value) const;
  Scope WithoutAttr(const std::string& name) const;
  // Without any internal attr: for ops that belong to no IPU cluster, shard
  // or loop of the caller (host ops, initial values).
  Scope WithoutAttrs() const;

  // A scope building `function_graph`, a function called from this scope's
  // graph: it shares this scope's status (an error inside the function is
  // the caller's error), has no name prefix, device, control dependencies or
  // internal attrs but the caller's variable scope, and hands values of
  // enclosing graphs to `capturer`.
  // The same graph, device and names, with a status of its own: for
  // building a part of the graph that may fail (the Keras layer's program
  // of one fit call) without recording the error on the whole graph. The
  // nodes built before the failure stay, unused by any later Run.
  Scope WithFreshStatus() const;
  Scope NewFunctionScope(std::shared_ptr<Graph> function_graph,
                         std::shared_ptr<ValueCapturer> capturer) const;
  // The capturer of a function scope; nullptr for a graph's own scope.
  ValueCapturer* capturer() const { return capturer_.get(); }

  bool ok() const { return status_->ok(); }
  absl::Status status() const { return *status_; }
  // Records `s` unless an earlier error is already recorded.
  void UpdateStatus(absl::Status s) const;

  Graph* graph() const { return graph_.get(); }
  std::shared_ptr<Graph> graph_as_shared_ptr() const { return graph_; }
  // The graph as a GraphDef, or the scope's error.
  absl::StatusOr<GraphDef> ToGraphDef() const;

  const std::string& device() const { return device_; }
  const std::string& name_prefix() const { return prefix_; }
  // The prefix of variables made with get_variable in this scope.
  const std::string& variable_scope_prefix() const { return variable_prefix_; }
  const std::vector<Operation>& control_deps() const { return control_deps_; }
  const std::map<std::string, AttrValue>& attrs() const { return attrs_; }
  // The attr set by WithAttr, or nullptr.
  const AttrValue* FindAttr(const std::string& name) const;

  // The name the next op gets: the WithOpName name if any, else
  // `default_name`; prefixed and made unique in the graph.
  std::string GetUniqueNameForOp(const std::string& default_name) const;

 private:
  Scope() = default;

  std::shared_ptr<Graph> graph_;
  std::shared_ptr<absl::Status> status_;
  std::string prefix_;
  std::string variable_prefix_;
  std::string op_name_;
  std::string device_;
  std::vector<Operation> control_deps_;
  std::map<std::string, AttrValue> attrs_;
  std::shared_ptr<ValueCapturer> capturer_;
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CC_SCOPE_H_
