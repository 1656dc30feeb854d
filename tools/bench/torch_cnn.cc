#include "tools/bench/torch_cnn.h"

#include <torch/torch.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/bench/openblas_threads.h"
#include "tools/bench/stopwatch.h"
#include "tools/bench/torch_peer.h"

namespace tfipu_bench {
namespace {

constexpr int kWarmupSteps = 20;

torch::Tensor Blob(const std::vector<float>& v, at::IntArrayRef shape) {
  return torch::from_blob(const_cast<float*>(v.data()), shape);
}

class TorchCnnImpl : public torch::nn::Module {
 public:
  explicit TorchCnnImpl(const CnnWeights& w)
      : conv1_(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3)))),
        conv2_(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3)))),
        pool_(register_module("pool", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)))),
        dropout_(register_module("dropout", torch::nn::Dropout(0.5))),
        dense_(register_module("dense", torch::nn::Linear(1600, 10))) {
    torch::NoGradGuard no_grad;
    // Keras's HWIO kernels to libtorch's [out, in, kh, kw].
    conv1_->weight.copy_(Blob(w.conv1_kernel, {3, 3, 1, 32}).permute({3, 2, 0, 1}));
    conv1_->bias.copy_(Blob(w.conv1_bias, {32}));
    conv2_->weight.copy_(Blob(w.conv2_kernel, {3, 3, 32, 64}).permute({3, 2, 0, 1}));
    conv2_->bias.copy_(Blob(w.conv2_bias, {64}));
    // Keras's [1600, 10] over (h, w, c) features to libtorch's [10, 1600]
    // over its NCHW flatten (c, h, w).
    dense_->weight.copy_(
        Blob(w.dense_kernel, {5, 5, 64, 10}).permute({3, 2, 0, 1}).reshape({10, 1600}));
    dense_->bias.copy_(Blob(w.dense_bias, {10}));
  }

  // The logits.
  torch::Tensor forward(torch::Tensor x) {
    x = pool_->forward(torch::relu(conv1_->forward(x)));
    x = pool_->forward(torch::relu(conv2_->forward(x)));
    return dense_->forward(dropout_->forward(x.flatten(1)));
  }

 private:
  torch::nn::Conv2d conv1_, conv2_;
  torch::nn::MaxPool2d pool_;
  torch::nn::Dropout dropout_;
  torch::nn::Linear dense_;
};
TORCH_MODULE(TorchCnn);

torch::Tensor Images(const ImageSet& set, int64_t step, int batch) {
  return torch::from_blob(const_cast<float*>(set.batch_images(step, batch)),
                          {batch, 1, 28, 28});
}

double TestAccuracy(TorchCnn& model, const ImageSet& test, int batch) {
  model->eval();
  torch::NoGradGuard no_grad;
  int64_t right = 0;
  const int64_t batches = test.num_batches(batch);
  for (int64_t s = 0; s < batches; ++s) {
    torch::Tensor predicted = model->forward(Images(test, s, batch)).argmax(1);
    const int64_t* p = predicted.data_ptr<int64_t>();
    const int32_t* y = test.batch_labels(s, batch);
    for (int i = 0; i < batch; ++i) right += p[i] == y[i];
  }
  model->train();
  return static_cast<double>(right) / (batches * batch);
}

}  // namespace

absl::StatusOr<Outcome> TorchTrainCnn(const CnnWeights& weights, const FashionMnist& data,
                                      int batch, int64_t steps, float lr, int threads) {
  const ImageSet& set = data.train;
  if (steps < 1 || steps > set.num_batches(batch)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "steps = ", steps, ": the set has ", set.num_batches(batch), " batches of ", batch));
  }
  if (set.pixels != 28 * 28) {
    return absl::InvalidArgumentError(absl::StrCat("images of ", set.pixels, " pixels"));
  }
  SetTorchThreads(threads);
  std::vector<int64_t> labels(set.labels.begin(), set.labels.end());
  auto step = [&](TorchCnn& model, torch::optim::SGD& opt, int64_t s) {
    opt.zero_grad();
    torch::Tensor y = torch::from_blob(labels.data() + s * batch, {batch}, torch::kLong);
    torch::Tensor loss =
        torch::nn::functional::cross_entropy(model->forward(Images(set, s, batch)), y);
    loss.backward();
    opt.step();
    return loss.item<float>();
  };
  {
    // Warm up threads and allocator on a throw-away copy.
    TorchCnn model(weights);
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(lr));
    for (int i = 0; i < kWarmupSteps; ++i) step(model, opt, i % steps);
  }
  TorchCnn model(weights);
  model->train();
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(lr));
  double loss_sum = 0;
  Stopwatch sw;
  for (int64_t s = 0; s < steps; ++s) loss_sum += step(model, opt, s);
  Outcome o;
  o.seconds = sw.Seconds();
  o.steps = steps;
  o.checks = {{"epoch loss", loss_sum / steps, kCnnEpochLossTolerance},
              {"test accuracy", TestAccuracy(model, data.test, batch), kCnnTestAccuracyTolerance}};
  const int blas = OpenBlasThreads();
  o.note = absl::StrCat(at::get_num_threads(), at::get_num_threads() == 1 ? " thread" : " threads",
                        blas < 0 ? std::string() : absl::StrCat(" (OpenBLAS ", blas, ")"),
                        "; mkldnn ", at::globalContext().userEnabledMkldnn() &&
                                             at::hasMKLDNN() ? "on" : "off");
  return o;
}

}  // namespace tfipu_bench
