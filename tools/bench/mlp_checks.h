// The numbers the MLP benchmarks' contestants must agree on.
//
//   InferenceChecksum sum(10);
//   for (each step) sum.Add(logits, labels, 32);
//   outcome.checks = sum.Checks();     // mean logit, train accuracy
//
//   LossWindow losses(100);
//   for (each step) losses.Add(loss);
//   outcome.checks = TrainingChecks(losses, final_weights, data.test);
#ifndef TOOLS_BENCH_MLP_CHECKS_H_
#define TOOLS_BENCH_MLP_CHECKS_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "tools/bench/contest.h"
#include "tools/bench/fashion_mnist.h"
#include "tools/bench/mlp_weights.h"

namespace tfipu_bench {

// Accumulates the logits of an inference epoch.
class InferenceChecksum {
 public:
  explicit InferenceChecksum(int classes) : classes_(classes) {}
  void Add(const float* logits, const int32_t* labels, int batch);
  double mean_logit() const { return count_ ? sum_ / (count_ * classes_) : 0; }
  double accuracy() const { return count_ ? static_cast<double>(correct_) / count_ : 0; }
  // "mean logit" (tolerance 1e-4) and "accuracy" (1e-4: six images in
  // 60,000 may flip between near-equal logits summed in another order).
  std::vector<Check> Checks() const;

 private:
  int classes_;
  int64_t count_ = 0;
  int64_t correct_ = 0;
  double sum_ = 0;
};

// The mean of the last `window` losses.
class LossWindow {
 public:
  explicit LossWindow(int window = 100) : window_(window) {}
  void Add(double loss);
  double Mean() const;

 private:
  int window_;
  std::deque<double> last_;
};

// "final loss" (mean of the window; tolerance 0.02) and "test accuracy"
// (of `trained` on `test`; tolerance 0.01): SGD in float32 in a different
// summation order drifts a little over an epoch, a different computation
// far more.
std::vector<Check> TrainingChecks(const LossWindow& losses, const MlpWeights& trained,
                                  const ImageSet& test);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_MLP_CHECKS_H_
