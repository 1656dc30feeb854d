#include "tools/bench/eigen_mlp.h"

#include <cmath>

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

// A naive forward pass, written out loop by loop.
std::vector<float> NaiveForward(const MlpWeights& m, const std::vector<float>& x, int batch) {
  std::vector<float> a = x;
  for (size_t k = 0; k < m.layers.size(); ++k) {
    const DenseLayer& l = m.layers[k];
    std::vector<float> z(static_cast<size_t>(batch) * l.out);
    for (int r = 0; r < batch; ++r) {
      for (int j = 0; j < l.out; ++j) {
        double s = l.b[j];
        for (int i = 0; i < l.in; ++i) s += a[r * l.in + i] * l.w[i * l.out + j];
        z[r * l.out + j] = k + 1 < m.layers.size() ? std::max(0.0, s) : s;
      }
    }
    a = z;
  }
  return a;
}

double NaiveLoss(const MlpWeights& m, const std::vector<float>& x,
                 const std::vector<int32_t>& labels, int batch) {
  std::vector<float> logits = NaiveForward(m, x, batch);
  const int c = m.layers.back().out;
  double loss = 0;
  for (int r = 0; r < batch; ++r) {
    double mx = -1e30, sum = 0;
    for (int j = 0; j < c; ++j) mx = std::max<double>(mx, logits[r * c + j]);
    for (int j = 0; j < c; ++j) sum += std::exp(logits[r * c + j] - mx);
    loss += std::log(sum) - (logits[r * c + labels[r]] - mx);
  }
  return loss / batch;
}

struct Fixture {
  MlpWeights m = GlorotUniformMlp({6, 5, 4, 3}, 7);
  std::vector<float> x;
  std::vector<int32_t> labels = {0, 2, 1, 2};
  int batch = 4;
  Fixture() {
    SplitMix64 rng(3);
    for (int i = 0; i < batch * 6; ++i) x.push_back(rng.NextUnitFloat());
    for (DenseLayer& l : m.layers) {
      for (float& b : l.b) b = 0.1f * (rng.NextUnitFloat() - 0.5f);
    }
  }
};

TEST(EigenMlpTest, ForwardMatchesNaiveLoops) {
  Fixture f;
  EigenMlp mlp(f.m);
  std::vector<float> logits(f.batch * 3);
  mlp.Forward(f.x.data(), f.batch, logits.data());
  std::vector<float> want = NaiveForward(f.m, f.x, f.batch);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(logits[i], want[i], 1e-5);
}

TEST(EigenMlpTest, GradientsMatchFiniteDifferences) {
  Fixture f;
  EigenMlp mlp(f.m);
  MlpWeights grads;
  const float loss = mlp.Gradients(f.x.data(), f.labels.data(), f.batch, &grads);
  EXPECT_NEAR(loss, NaiveLoss(f.m, f.x, f.labels, f.batch), 1e-5);
  const double eps = 1e-3;
  for (size_t k = 0; k < f.m.layers.size(); ++k) {
    for (int which = 0; which < 2; ++which) {
      std::vector<float>& p = which == 0 ? f.m.layers[k].w : f.m.layers[k].b;
      const std::vector<float>& g = which == 0 ? grads.layers[k].w : grads.layers[k].b;
      for (size_t i = 0; i < p.size(); ++i) {
        const float saved = p[i];
        p[i] = saved + eps;
        const double up = NaiveLoss(f.m, f.x, f.labels, f.batch);
        p[i] = saved - eps;
        const double down = NaiveLoss(f.m, f.x, f.labels, f.batch);
        p[i] = saved;
        EXPECT_NEAR(g[i], (up - down) / (2 * eps), 2e-3)
            << "layer " << k << (which == 0 ? " w[" : " b[") << i << "]";
      }
    }
  }
}

TEST(EigenMlpTest, TrainStepAppliesSgdAndLowersTheLoss) {
  Fixture f;
  EigenMlp mlp(f.m);
  MlpWeights grads;
  EigenMlp probe(f.m);
  probe.Gradients(f.x.data(), f.labels.data(), f.batch, &grads);
  const float first = mlp.TrainStep(f.x.data(), f.labels.data(), f.batch, 0.1f);
  MlpWeights after = mlp.weights();
  EXPECT_NEAR(after.layers[1].w[3], f.m.layers[1].w[3] - 0.1f * grads.layers[1].w[3], 1e-6);
  float last = first;
  for (int i = 0; i < 50; ++i) last = mlp.TrainStep(f.x.data(), f.labels.data(), f.batch, 0.1f);
  EXPECT_LT(last, first);
}

// With oneDNN's products where the library's rule picks them, the same
// gradients and training as with Eigen's (to float rounding: the two sum in
// different orders). The layers are wide enough that the forward products,
// the weight gradients and one input gradient go to oneDNN; the 10-column
// ones stay on Eigen.
TEST(EigenMlpTest, OneDnnProductsGiveEigensTraining) {
  const MlpWeights m = GlorotUniformMlp({200, 64, 32, 10}, 5);
  const int batch = 32;
  SplitMix64 rng(11);
  std::vector<float> x;
  std::vector<int32_t> labels;
  for (int i = 0; i < batch * 200; ++i) x.push_back(rng.NextUnitFloat());
  for (int r = 0; r < batch; ++r) labels.push_back(r % 10);
  EigenMlp eigen(m), onednn(m, ProductLibrary::kOneDnnWhereFaster);
  MlpWeights ge, gd;
  const float le = eigen.Gradients(x.data(), labels.data(), batch, &ge);
  const float ld = onednn.Gradients(x.data(), labels.data(), batch, &gd);
  EXPECT_NEAR(ld, le, 1e-5);
  // Of the eight products, those with 10 output columns (a forward product,
  // a weight gradient) or a depth of 10 (an input gradient: 10K
  // multiply-adds) stay on Eigen.
  EXPECT_EQ(eigen.onednn_products(), 0);
  EXPECT_EQ(onednn.onednn_products(), 5);
  for (size_t k = 0; k < m.layers.size(); ++k) {
    for (size_t i = 0; i < ge.layers[k].w.size(); ++i) {
      ASSERT_NEAR(gd.layers[k].w[i], ge.layers[k].w[i], 1e-6) << "layer " << k << " w[" << i << "]";
    }
    for (size_t i = 0; i < ge.layers[k].b.size(); ++i) {
      ASSERT_NEAR(gd.layers[k].b[i], ge.layers[k].b[i], 1e-6) << "layer " << k << " b[" << i << "]";
    }
  }
  float last_e = 0, last_d = 0;
  for (int step = 0; step < 3; ++step) {
    last_e = eigen.TrainStep(x.data(), labels.data(), batch, 0.1f);
    last_d = onednn.TrainStep(x.data(), labels.data(), batch, 0.1f);
  }
  EXPECT_NEAR(last_d, last_e, 1e-5);
}

TEST(EigenMlpTest, AccuracyCountsArgmaxHits) {
  // One layer, identity weights: the argmax is the largest input.
  MlpWeights m;
  m.layers.push_back({3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}});
  std::vector<float> x = {1, 0, 0, 0, 0, 2, 0, 3, 1, 5, 0, 0};
  std::vector<int32_t> labels = {0, 2, 0, 0};
  EXPECT_DOUBLE_EQ(EvaluateAccuracy(m, x.data(), labels.data(), 4), 0.75);
}

}  // namespace
}  // namespace tfipu_bench
