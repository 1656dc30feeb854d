// AdamOptimizer, with TensorFlow's update and defaults (lr 0.001, beta1 0.9,
// beta2 0.999, epsilon 1e-8; slots "Adam" (m) and "Adam_1" (v) at zeros;
// beta1_power and beta2_power beside the first variable, starting at beta1
// and beta2 and multiplied by them after each step):
//   lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m = beta1 * m + (1 - beta1) * grad
//   v = beta2 * v + (1 - beta2) * grad^2
//   var -= lr_t * m / (sqrt(v) + epsilon)
#ifndef TENSORFLOW_IPU_TRAIN_ADAM_H_
#define TENSORFLOW_IPU_TRAIN_ADAM_H_

#include "tensorflow_ipu/train/optimizer.h"

namespace tensorflow_ipu {
namespace train {

class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9,
                         double beta2 = 0.999, double epsilon = 1e-8)
      : Optimizer("Adam"),
        learning_rate_(learning_rate),
        beta1_(beta1),
        beta2_(beta2),
        epsilon_(epsilon) {}

 protected:
  absl::Status Prepare(const Scope& scope, const Variable& first) override;
  absl::StatusOr<Operation> ApplyDense(const Scope& scope, Output grad,
                                       const Variable& var) override;
  absl::StatusOr<std::vector<Operation>> FinishUpdates(
      const Scope& scope, const std::vector<Operation>& updates) override;

 private:
  double learning_rate_, beta1_, beta2_, epsilon_;
  Variable beta1_power_, beta2_power_;
  Output lr_t_;  // this step's corrected learning rate
};

}  // namespace train
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_TRAIN_ADAM_H_
