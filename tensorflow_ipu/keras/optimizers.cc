#include "tensorflow_ipu/keras/optimizers.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/math_ops.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/train/adam.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tensorflow_ipu/train/momentum.h"

namespace tensorflow_ipu {
namespace keras {
namespace optimizers {
namespace {

// Keras's RMSprop, which differs from TensorFlow 1's RMSPropOptimizer
// (train/rmsprop.h): the mean square starts at 0, not 1, and epsilon is
// added to its square root: var -= lr * g / (sqrt(ms) + epsilon).
class KerasRMSprop : public train::Optimizer {
 public:
  KerasRMSprop(double lr, double rho, double epsilon)
      : train::Optimizer("RMSprop"), lr_(lr), rho_(rho), epsilon_(epsilon) {}

 protected:
  absl::StatusOr<Operation> ApplyDense(const Scope& scope, Output grad,
                                       const Variable& var) override {
    const DataType t = var.dtype();
    ASSIGN_OR_RETURN(Variable ms_var, GetSlot(scope, var, "rms", initializers::Zeros()));
    Output ms = ops::Add(scope, ops::Mul(scope, ms_var.value(scope), Scalar(scope, rho_, t)),
                         ops::Mul(scope, ops::Square(scope, grad), Scalar(scope, 1 - rho_, t)));
    Operation store = ms_var.assign(scope, ms);
    Output step = ops::RealDiv(
        scope, ops::Mul(scope, grad, Scalar(scope, lr_, t)),
        ops::Add(scope, ops::Sqrt(scope, ms), Scalar(scope, epsilon_, t)));
    return var.assign_sub(scope.WithControlDependencies({store}), step);
  }

 private:
  double lr_, rho_, epsilon_;
};

}  // namespace

Optimizer::Optimizer(const std::string& name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "sgd") {
    config_ = SGD().config();
  } else if (lower == "adam") {
    config_ = Adam().config();
  } else if (lower == "rmsprop") {
    config_ = RMSprop().config();
  } else {
    status_ = absl::InvalidArgumentError(absl::StrCat(
        "Could not interpret optimizer identifier: ", name,
        ". Known optimizers: \"sgd\", \"adam\", \"rmsprop\""));
  }
}

absl::StatusOr<std::unique_ptr<train::Optimizer>> Optimizer::Make() const {
  RETURN_IF_ERROR(status_);
  const OptimizerConfig& c = config_;
  if (!(c.learning_rate >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the learning_rate of ", c.name, " must be a non-negative number, not ",
        c.learning_rate));
  }
  if (c.name == "SGD") {
    if (c.momentum == 0 && !c.nesterov) {
      return std::unique_ptr<train::Optimizer>(
          new train::GradientDescentOptimizer(c.learning_rate));
    }
    // Keras's velocity (v = m v - lr g) is TensorFlow 1's accumulator
    // times -lr: the same updates for a constant learning rate.
    return std::unique_ptr<train::Optimizer>(
        new train::MomentumOptimizer(c.learning_rate, c.momentum, c.nesterov));
  }
  if (c.name == "Adam") {
    return std::unique_ptr<train::Optimizer>(
        new train::AdamOptimizer(c.learning_rate, c.beta_1, c.beta_2, c.epsilon));
  }
  if (c.momentum != 0) {
    return absl::UnimplementedError(
        "RMSprop with momentum is not implemented; use momentum=0");
  }
  return std::unique_ptr<train::Optimizer>(
      new KerasRMSprop(c.learning_rate, c.rho, c.epsilon));
}

Optimizer SGD(double learning_rate, double momentum, bool nesterov) {
  OptimizerConfig c;
  c.name = "SGD";
  c.learning_rate = learning_rate;
  c.momentum = momentum;
  c.nesterov = nesterov;
  return Optimizer(c);
}

Optimizer Adam(double learning_rate, double beta_1, double beta_2, double epsilon) {
  OptimizerConfig c;
  c.name = "Adam";
  c.learning_rate = learning_rate;
  c.beta_1 = beta_1;
  c.beta_2 = beta_2;
  c.epsilon = epsilon;
  return Optimizer(c);
}

Optimizer RMSprop(double learning_rate, double rho, double momentum, double epsilon) {
  OptimizerConfig c;
  c.name = "RMSprop";
  c.learning_rate = learning_rate;
  c.rho = rho;
  c.momentum = momentum;
  c.epsilon = epsilon;
  return Optimizer(c);
}

}  // namespace optimizers
}  // namespace keras
}  // namespace tensorflow_ipu
