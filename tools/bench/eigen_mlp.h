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
//
// Products: Eigen's, or with ProductLibrary::kOneDnnWhereFaster oneDNN's
// one-thread sgemm wherever the library's own rule picks it
// (dnnl_one_thread::FasterThanEigen, third_party/dnnl): the same GEMM
// choice as the library's kernels, for a peer that differs from the
// library only in what the library adds around its products.
#ifndef TOOLS_BENCH_EIGEN_MLP_H_
#define TOOLS_BENCH_EIGEN_MLP_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "tools/bench/mlp_weights.h"

namespace tfipu_bench {

void SetEigenThreads(int n);

enum class ProductLibrary { kEigen, kOneDnnWhereFaster };
// What a contestant's note says of its products: "" for Eigen's.
const char* ProductLibraryNote(ProductLibrary products);

class EigenMlp {
 public:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

  explicit EigenMlp(const MlpWeights& weights,
                    ProductLibrary products = ProductLibrary::kEigen);

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
  // How many products ran on oneDNN so far (0 with ProductLibrary::kEigen).
  int64_t onednn_products() const { return onednn_products_; }

 private:
  void ForwardInternal(const float* x, int batch);
  float Backward(const float* x, const int32_t* labels, int batch);
  // c = op(a) op(b), op transposing when asked; a and b row-major as stored
  // ([a_rows, a_cols], [b_rows, b_cols]), c resized to fit.
  void Product(const float* a, int a_rows, int a_cols, bool transpose_a, const float* b,
               int b_rows, int b_cols, bool transpose_b, Matrix& c);

  ProductLibrary products_;
  int64_t onednn_products_ = 0;

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
