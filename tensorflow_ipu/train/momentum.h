// MomentumOptimizer, with TensorFlow's update (slot "Momentum", zeros):
//   accum = momentum * accum + grad
//   var -= lr * accum                          (plain)
//   var -= lr * grad + lr * momentum * accum   (use_nesterov)
#ifndef TENSORFLOW_IPU_TRAIN_MOMENTUM_H_
#define TENSORFLOW_IPU_TRAIN_MOMENTUM_H_

#include "tensorflow_ipu/train/optimizer.h"

namespace tensorflow_ipu {
namespace train {

class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(double learning_rate, double momentum,
                    bool use_nesterov = false)
      : Optimizer("Momentum"),
        learning_rate_(learning_rate),
        momentum_(momentum),
        use_nesterov_(use_nesterov) {}

 protected:
  absl::StatusOr<Operation> ApplyDense(const Scope& scope, Output grad,
                                       const Variable& var) override;

 private:
  double learning_rate_;
  double momentum_;
  bool use_nesterov_;
};

}  // namespace train
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_TRAIN_MOMENTUM_H_
