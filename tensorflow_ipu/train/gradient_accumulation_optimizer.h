// GradientAccumulationOptimizerV2: the vendor's
// ipu.optimizers.GradientAccumulationOptimizerV2. It wraps any optimizer:
// every mini-batch adds its gradients into accumulators, and once every
// `num_mini_batches` mini-batches the wrapped optimizer applies the
// accumulated gradients and the accumulators are cleared. One weight
// update covers num_mini_batches x batch samples, without the memory of
// that batch.
//
//   train::GradientDescentOptimizer sgd(0.1);
//   train::GradientAccumulationOptimizerV2 opt(sgd, 4);   // a body of 16
//   ASSIGN_OR_RETURN(Operation step, opt.minimize(body_scope, loss));
//
// It must be used inside ipu::loops::repeat, whose iteration count must be
// a multiple of num_mini_batches (else the vendor's FailedPrecondition
// errors, naming both numbers, when the cluster compiles). Reductions:
//  - SUM: the accumulated sum (the default, as the vendor's);
//  - MEAN: the sum divided by num_mini_batches, so the update equals one
//    step on the whole num_mini_batches x batch with a mean loss; as the
//    vendor's, each mini-batch's gradient is scaled by 1 / num_mini_batches
//    as it is added (acc += g / N), so the update reads the accumulator as
//    it is (and the IPU adds a weight gradient's product, scaled, straight
//    into its accumulator: compiler/matmul_accumulation.h);
//  - RUNNING_MEAN: the mean kept as it goes (acc += (g - acc) / k for the
//    k-th mini-batch), which stays in range in a narrow accumulator dtype.
// `accumulator_dtype` (default: the variable's) lets half variables
// accumulate in float. Wrap a CrossReplicaOptimizer to reduce across
// replicas once per update rather than once per mini-batch. global_step
// counts weight updates.
#ifndef TENSORFLOW_IPU_TRAIN_GRADIENT_ACCUMULATION_OPTIMIZER_H_
#define TENSORFLOW_IPU_TRAIN_GRADIENT_ACCUMULATION_OPTIMIZER_H_

#include <string>
#include <vector>

#include "tensorflow_ipu/train/optimizer.h"

namespace tensorflow_ipu {
namespace train {

enum class GradientAccumulationReductionMethod { SUM, MEAN, RUNNING_MEAN };

class GradientAccumulationOptimizerV2 : public OptimizerWrapper {
 public:
  // `opt` must outlive this optimizer.
  GradientAccumulationOptimizerV2(
      Optimizer& opt, int num_mini_batches,
      GradientAccumulationReductionMethod reduction_method =
          GradientAccumulationReductionMethod::SUM,
      DataType accumulator_dtype = DT_INVALID,
      std::string name = "GradientAccumulationOptimizerV2")
      : OptimizerWrapper(opt, std::move(name)),
        num_mini_batches_(num_mini_batches),
        reduction_(reduction_method),
        accumulator_dtype_(accumulator_dtype) {}

  // Accumulates, and builds the update that runs once every
  // num_mini_batches iterations; returns that update.
  absl::StatusOr<Operation> apply_gradients(const Scope& scope,
                                            const std::vector<GradAndVar>& grads_and_vars,
                                            const Variable* global_step = nullptr) override;

 private:
  int num_mini_batches_;
  GradientAccumulationReductionMethod reduction_;
  DataType accumulator_dtype_;
};

}  // namespace train
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_TRAIN_GRADIENT_ACCUMULATION_OPTIMIZER_H_
