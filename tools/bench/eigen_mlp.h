// EigenMlp: the hand-written Eigen MLP, forward and SGD training on softmax
// cross-entropy. It is the "native program" contestant of the benchmarks
// (the ceiling of what a C++ program does on this machine) and the
// reference the other contestants' numbers are checked against.
//
//   EigenMlp mlp(GlorotUniformMlp(FashionMlpSizes(), kBenchSeed));
//   float loss = mlp.TrainStep(images, labels, 32, 0.05f);
//   mlp.Forward(images, 32, logits);      // logits: 32 x 10
//
// Threads: Eigen's matrix products use OpenMP; SetEigenThreads(n) sets how
// many (this library is built with -fopenmp).
#ifndef TOOLS_BENCH_EIGEN_MLP_H_
#define TOOLS_BENCH_EIGEN_MLP_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "tools/bench/mlp_weights.h"

namespace tfipu_bench {

void SetEigenThreads(int n);

class EigenMlp {
 public:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

  explicit EigenMlp(const MlpWeights& weights);

  // x: batch x in, row-major; logits: batch x out.
  void Forward(const float* x, int batch, float* logits);
  // One step of SGD with learning rate `lr` on the mean softmax
  // cross-entropy of the batch (labels in [0, out)); returns that mean loss
  // as it was before the update.
  float TrainStep(const float* x, const int32_t* labels, int batch, float lr);
  // The mean loss and the gradients of it (same layout as the weights),
  // without updating.
  float Gradients(const float* x, const int32_t* labels, int batch,
                  MlpWeights* grads);

  MlpWeights weights() const;

 private:
  void ForwardInternal(const float* x, int batch);
  float Backward(const float* x, const int32_t* labels, int batch);

  std::vector<Matrix> w_;
  std::vector<RowVector> b_;
  // Per layer: the activations (after ReLU, logits for the last) and the
  // gradients, reused across steps of the same batch size.
  std::vector<Matrix> act_;
  std::vector<Matrix> grad_act_;
  std::vector<Matrix> grad_w_;
  std::vector<RowVector> grad_b_;
};

// The fraction of `count` images (count x in, row-major) whose argmax logit
// is their label, with `weights`, in batches.
double EvaluateAccuracy(const MlpWeights& weights, const float* images,
                        const int32_t* labels, int64_t count);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_EIGEN_MLP_H_
