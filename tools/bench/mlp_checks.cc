#include "tools/bench/mlp_checks.h"

#include <algorithm>

#include "tools/bench/eigen_mlp.h"

namespace tfipu_bench {

void InferenceChecksum::Add(const float* logits, const int32_t* labels, int batch) {
  for (int r = 0; r < batch; ++r) {
    const float* row = logits + static_cast<size_t>(r) * classes_;
    for (int j = 0; j < classes_; ++j) sum_ += row[j];
    const int arg = static_cast<int>(std::max_element(row, row + classes_) - row);
    correct_ += arg == labels[r] ? 1 : 0;
  }
  count_ += batch;
}

std::vector<Check> InferenceChecksum::Checks() const {
  return {{"mean logit", mean_logit(), 1e-4}, {"accuracy", accuracy(), 1e-4}};
}

void LossWindow::Add(double loss) {
  last_.push_back(loss);
  if (static_cast<int>(last_.size()) > window_) last_.pop_front();
}

double LossWindow::Mean() const {
  if (last_.empty()) return 0;
  double s = 0;
  for (double l : last_) s += l;
  return s / last_.size();
}

std::vector<Check> TrainingChecks(const LossWindow& losses, const MlpWeights& trained,
                                  const ImageSet& test) {
  return {{"final loss", losses.Mean(), 0.02},
          {"test accuracy",
           EvaluateAccuracy(trained, test.images.data(), test.labels.data(), test.count),
           0.01}};
}

}  // namespace tfipu_bench
