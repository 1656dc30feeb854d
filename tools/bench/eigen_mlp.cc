#include "tools/bench/eigen_mlp.h"

#include <algorithm>
#include <cmath>

#include "third_party/dnnl/one_thread_sgemm.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tfipu_bench {

void SetEigenThreads(int n) { Eigen::setNbThreads(n); }

const char* ProductLibraryNote(ProductLibrary products) {
  return products == ProductLibrary::kEigen
             ? ""
             : "; the library's GEMM choice: oneDNN's one-thread sgemm for the wide products, "
               "Eigen for the rest";
}

EigenMlp::EigenMlp(const MlpWeights& weights, ProductLibrary products) : products_(products) {
  for (const DenseLayer& l : weights.layers) {
    w_.push_back(Eigen::Map<const Matrix>(l.w.data(), l.in, l.out));
    b_.push_back(Eigen::Map<const RowVector>(l.b.data(), l.out));
  }
  const size_t n = w_.size();
  act_.resize(n);
  grad_act_.resize(n);
  grad_w_.resize(n);
  grad_b_.resize(n);
}

void EigenMlp::Product(const float* a, int a_rows, int a_cols, bool transpose_a, const float* b,
                       int b_rows, int b_cols, bool transpose_b, Matrix& c) {
  const int m = transpose_a ? a_cols : a_rows, k = transpose_a ? a_rows : a_cols;
  const int n = transpose_b ? b_rows : b_cols;
  c.resize(m, n);
  if (products_ == ProductLibrary::kOneDnnWhereFaster &&
      dnnl_one_thread::FasterThanEigen(m, n, k) &&
      dnnl_one_thread::Sgemm(transpose_a, transpose_b, m, n, k, a, a_cols, b, b_cols, c.data(),
                             n)) {
    ++onednn_products_;
    return;
  }
  Eigen::Map<const Matrix> ma(a, a_rows, a_cols), mb(b, b_rows, b_cols);
  if (transpose_a && transpose_b) {
    c.noalias() = ma.transpose() * mb.transpose();
  } else if (transpose_a) {
    c.noalias() = ma.transpose() * mb;
  } else if (transpose_b) {
    c.noalias() = ma * mb.transpose();
  } else {
    c.noalias() = ma * mb;
  }
}

void EigenMlp::ForwardInternal(const float* x, int batch) {
  const int in = static_cast<int>(w_[0].rows());
  for (size_t k = 0; k < w_.size(); ++k) {
    Matrix& a = act_[k];
    const Matrix& w = w_[k];
    const int rows = static_cast<int>(w.rows()), cols = static_cast<int>(w.cols());
    if (k == 0) {
      Product(x, batch, in, false, w.data(), rows, cols, false, a);
    } else {
      Product(act_[k - 1].data(), batch, rows, false, w.data(), rows, cols, false, a);
    }
    a.rowwise() += b_[k];
    if (k + 1 < w_.size()) a = a.cwiseMax(0.0f);
  }
}

void EigenMlp::Forward(const float* x, int batch, float* logits) {
  ForwardInternal(x, batch);
  const Matrix& out = act_.back();
  std::copy(out.data(), out.data() + out.size(), logits);
}

float EigenMlp::Backward(const float* x, const int32_t* labels, int batch) {
  ForwardInternal(x, batch);
  const size_t n = w_.size();
  // d(mean xent)/d logits = (softmax - onehot) / batch.
  Matrix& g = grad_act_[n - 1];
  const Matrix& logits = act_[n - 1];
  g.resize(batch, logits.cols());
  double loss = 0;
  for (int r = 0; r < batch; ++r) {
    const float m = logits.row(r).maxCoeff();
    g.row(r) = (logits.row(r).array() - m).exp();
    const float sum = g.row(r).sum();
    loss += std::log(sum) - (logits(r, labels[r]) - m);
    g.row(r) /= sum;
    g(r, labels[r]) -= 1.0f;
  }
  g /= static_cast<float>(batch);
  for (size_t k = n; k-- > 0;) {
    const int rows = static_cast<int>(w_[k].rows()), cols = static_cast<int>(w_[k].cols());
    const float* in = k == 0 ? x : act_[k - 1].data();
    Product(in, batch, rows, true, grad_act_[k].data(), batch, cols, false, grad_w_[k]);
    grad_b_[k] = grad_act_[k].colwise().sum();
    if (k > 0) {
      Matrix& prev = grad_act_[k - 1];
      Product(grad_act_[k].data(), batch, cols, false, w_[k].data(), rows, cols, true, prev);
      // ReLU: the gradient flows where the activation was positive.
      prev = (act_[k - 1].array() > 0.0f).select(prev, 0.0f);
    }
  }
  return static_cast<float>(loss / batch);
}

float EigenMlp::TrainStep(const float* x, const int32_t* labels, int batch, float lr) {
  const float loss = Backward(x, labels, batch);
  for (size_t k = 0; k < w_.size(); ++k) {
    w_[k].noalias() -= lr * grad_w_[k];
    b_[k].noalias() -= lr * grad_b_[k];
  }
  return loss;
}

float EigenMlp::Gradients(const float* x, const int32_t* labels, int batch,
                          MlpWeights* grads) {
  const float loss = Backward(x, labels, batch);
  grads->layers.clear();
  for (size_t k = 0; k < w_.size(); ++k) {
    DenseLayer l;
    l.in = static_cast<int>(w_[k].rows());
    l.out = static_cast<int>(w_[k].cols());
    l.w.assign(grad_w_[k].data(), grad_w_[k].data() + grad_w_[k].size());
    l.b.assign(grad_b_[k].data(), grad_b_[k].data() + grad_b_[k].size());
    grads->layers.push_back(std::move(l));
  }
  return loss;
}

MlpWeights EigenMlp::weights() const {
  MlpWeights m;
  for (size_t k = 0; k < w_.size(); ++k) {
    DenseLayer l;
    l.in = static_cast<int>(w_[k].rows());
    l.out = static_cast<int>(w_[k].cols());
    l.w.assign(w_[k].data(), w_[k].data() + w_[k].size());
    l.b.assign(b_[k].data(), b_[k].data() + b_[k].size());
    m.layers.push_back(std::move(l));
  }
  return m;
}

double EvaluateAccuracy(const MlpWeights& weights, const float* images,
                        const int32_t* labels, int64_t count) {
  if (count <= 0) return 0;
  EigenMlp mlp(weights);
  const int in = weights.layers.front().in;
  const int out = weights.layers.back().out;
  constexpr int kBatch = 500;
  std::vector<float> logits(static_cast<size_t>(kBatch) * out);
  int64_t correct = 0;
  for (int64_t start = 0; start < count; start += kBatch) {
    const int b = static_cast<int>(std::min<int64_t>(kBatch, count - start));
    mlp.Forward(images + start * in, b, logits.data());
    for (int r = 0; r < b; ++r) {
      const float* row = logits.data() + static_cast<size_t>(r) * out;
      const int arg = static_cast<int>(std::max_element(row, row + out) - row);
      correct += arg == labels[start + r] ? 1 : 0;
    }
  }
  return static_cast<double>(correct) / count;
}

}  // namespace tfipu_bench
