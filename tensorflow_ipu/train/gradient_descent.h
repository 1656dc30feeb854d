// GradientDescentOptimizer: var -= learning_rate * grad.
#ifndef TENSORFLOW_IPU_TRAIN_GRADIENT_DESCENT_H_
#define TENSORFLOW_IPU_TRAIN_GRADIENT_DESCENT_H_

#include "tensorflow_ipu/train/optimizer.h"

namespace tensorflow_ipu {
namespace train {

class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate)
      : Optimizer("GradientDescent"), learning_rate_(learning_rate) {}

 protected:
  absl::StatusOr<Operation> ApplyDense(const Scope& scope, Output grad,
                                       const Variable& var) override;

 private:
  double learning_rate_;
};

}  // namespace train
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_TRAIN_GRADIENT_DESCENT_H_
