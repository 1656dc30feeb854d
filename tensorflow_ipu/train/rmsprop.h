// RMSPropOptimizer, with TensorFlow's update and defaults (decay 0.9,
// momentum 0, epsilon 1e-10; slot "RMSProp" starts at ones, "RMSProp_1"
// (momentum) and, centered, "RMSProp_2" (mean gradient) at zeros):
//   ms  = decay * ms + (1 - decay) * grad^2
//   mg  = decay * mg + (1 - decay) * grad                  (centered)
//   den = ms + epsilon   (centered: ms - mg^2 + epsilon)
//   mom = momentum * mom + lr * grad / sqrt(den)
//   var -= mom
#ifndef TENSORFLOW_IPU_TRAIN_RMSPROP_H_
#define TENSORFLOW_IPU_TRAIN_RMSPROP_H_

#include "tensorflow_ipu/train/optimizer.h"

namespace tensorflow_ipu {
namespace train {

class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(double learning_rate, double decay = 0.9,
                            double momentum = 0.0, double epsilon = 1e-10,
                            bool centered = false)
      : Optimizer("RMSProp"),
        learning_rate_(learning_rate),
        decay_(decay),
        momentum_(momentum),
        epsilon_(epsilon),
        centered_(centered) {}

 protected:
  absl::StatusOr<Operation> ApplyDense(const Scope& scope, Output grad,
                                       const Variable& var) override;

 private:
  double learning_rate_, decay_, momentum_, epsilon_;
  bool centered_;
};

}  // namespace train
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_TRAIN_RMSPROP_H_
