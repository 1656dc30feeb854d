// VariableScope and get_variable: TensorFlow 1's variable_scope, for
// creating and sharing variables by name.
//
//   VariableScope vs(root, "vs");                    // use_resource by default
//   ASSIGN_OR_RETURN(Variable w, vs.get_variable("w", {2}, DT_FLOAT,
//                                                initializers::Constant(0.5f)));
//   VariableScope again(root, "vs", {.reuse = Reuse::kReuse});
//   ASSIGN_OR_RETURN(Variable same, again.get_variable("w", {2}, DT_FLOAT));
//   Operation init = global_variables_initializer(root);
//
// Names: a variable of scope "vs" is "vs/w" however often "vs" is entered.
// Variable scopes nest in the parent Scope's variable scope; name scopes
// (Scope::NewSubScope, the bodies of loops::repeat and while_loop, an
// optimizer's ops) do not count, as TF1's get_variable ignores
// tf.name_scope. So a model function called in two loop bodies asks for
// the same variables, and the second call must reuse them: creating a
// name that exists without reuse is an error naming it, as is reusing a
// name that does not exist, or reusing with another shape or dtype.
//
// Devices: the variable (its handle op) takes the scope's device and IPU
// attrs (shard), so a variable created under ipu_scope lives on the IPU. Its
// initial value is computed on the host (random numbers are drawn there, the
// same whatever the device) and assigned where the variable lives.
// `use_resource = false` makes reference variables (VariableV2), which only
// the CPU can hold, as in TensorFlow.
#ifndef TENSORFLOW_IPU_CC_VARIABLES_VARIABLE_SCOPE_H_
#define TENSORFLOW_IPU_CC_VARIABLES_VARIABLE_SCOPE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/cc/variables/initializers.h"
#include "tensorflow_ipu/cc/variables/variable.h"

namespace tensorflow_ipu {

// Graph collections the variable builders keep (Graph::GetCollection).
inline constexpr char kGlobalVariablesCollection[] = "variables";
inline constexpr char kTrainableVariablesCollection[] = "trainable_variables";

enum class Reuse {
  kNone,       // creating only; an existing name is an error
  kReuse,      // reusing only; a missing name is an error
  kAutoReuse,  // create if missing, else reuse
};

struct VariableScopeOptions {
  bool use_resource = true;
  Reuse reuse = Reuse::kNone;
};

class VariableScope {
 public:
  // A scope named `name` under `parent`'s variable scope ("" for parent's
  // own); its ops are in a name scope `name` under parent's name prefix.
  VariableScope(const Scope& parent, const std::string& name,
                VariableScopeOptions options = {});

  // "vs/name", or the variable of that name when reusing. `initializer`
  // defaults to GlorotUniform as TensorFlow's does for floats.
  absl::StatusOr<Variable> get_variable(
      const std::string& name, const TensorShape& shape,
      DataType dtype = DT_FLOAT, Initializer initializer = nullptr,
      bool trainable = true) const;

  // The Scope for other ops of this variable scope (names under "vs/").
  const Scope& scope() const { return scope_; }
  const std::string& name() const { return prefix_; }

 private:
  Scope scope_;
  std::string prefix_;
  VariableScopeOptions options_;
};

// get_variable in `scope`'s variable scope (TensorFlow's root variable
// scope unless a VariableScope or WithAbsoluteNameScope set one).
absl::StatusOr<Variable> get_variable(const Scope& scope,
                                      const std::string& name,
                                      const TensorShape& shape,
                                      DataType dtype = DT_FLOAT,
                                      Initializer initializer = nullptr,
                                      VariableScopeOptions options = {});

// The variable whose handle node is `name`, with its initializer; NotFound
// when there is none.
absl::StatusOr<Variable> FindVariable(const Scope& scope,
                                      const std::string& name);
// The variables of a collection, in creation order.
absl::StatusOr<std::vector<Variable>> VariablesInCollection(
    const Scope& scope, const std::string& collection);

// An op that runs every global variable's initializer.
Operation global_variables_initializer(const Scope& scope);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CC_VARIABLES_VARIABLE_SCOPE_H_
