#include "tools/bench/torch_peer.h"

#include <torch/torch.h>
#include <torch/version.h>

#include "absl/strings/str_cat.h"
#include "tools/bench/mlp_checks.h"
#include "tools/bench/openblas_threads.h"
#include "tools/bench/peer_env.h"
#include "tools/bench/stopwatch.h"

namespace tfipu_bench {
namespace {

constexpr int kWarmupSteps = 20;

class TorchMlpImpl : public torch::nn::Module {
 public:
  explicit TorchMlpImpl(const MlpWeights& w) {
    torch::NoGradGuard no_grad;
    for (size_t k = 0; k < w.layers.size(); ++k) {
      const DenseLayer& l = w.layers[k];
      auto linear = register_module(absl::StrCat("fc", k + 1),
                                    torch::nn::Linear(l.in, l.out));
      // nn::Linear keeps its weight as [out, in]; ours is [in, out].
      linear->weight.copy_(
          torch::from_blob(const_cast<float*>(l.w.data()), {l.in, l.out}).t());
      linear->bias.copy_(torch::from_blob(const_cast<float*>(l.b.data()), {l.out}));
      layers_.push_back(linear);
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    for (size_t k = 0; k < layers_.size(); ++k) {
      x = layers_[k]->forward(x);
      if (k + 1 < layers_.size()) x = torch::relu(x);
    }
    return x;
  }

  MlpWeights Export() const {
    MlpWeights m;
    for (const torch::nn::Linear& linear : layers_) {
      torch::Tensor w = linear->weight.detach().t().contiguous();
      torch::Tensor b = linear->bias.detach().contiguous();
      DenseLayer l;
      l.in = static_cast<int>(w.size(0));
      l.out = static_cast<int>(w.size(1));
      l.w.assign(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
      l.b.assign(b.data_ptr<float>(), b.data_ptr<float>() + b.numel());
      m.layers.push_back(std::move(l));
    }
    return m;
  }

 private:
  std::vector<torch::nn::Linear> layers_;
};
TORCH_MODULE(TorchMlp);

torch::Tensor Images(const ImageSet& set, int64_t step, int batch) {
  return torch::from_blob(const_cast<float*>(set.batch_images(step, batch)),
                          {batch, set.pixels});
}

absl::Status CheckSteps(const ImageSet& set, int batch, int64_t steps) {
  if (steps < 1 || steps > set.num_batches(batch)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "steps = ", steps, ": the set has ", set.num_batches(batch),
        " batches of ", batch));
  }
  return absl::OkStatus();
}

// "2 threads (OpenBLAS 2)": what the contestant really ran on.
std::string ThreadsNote() {
  const int blas = OpenBlasThreads();
  const int n = at::get_num_threads();
  return absl::StrCat(n, n == 1 ? " thread" : " threads",
                      blas < 0 ? std::string() : absl::StrCat(" (OpenBLAS ", blas, ")"));
}

}  // namespace

void SetTorchThreads(int n) {
  at::set_num_threads(n);
  SetOpenBlasThreads(n);
}

std::string TorchSummary() {
  const int blas_threads = OpenBlasThreads();
  return absl::StrCat("libtorch ", TORCH_VERSION_MAJOR, ".", TORCH_VERSION_MINOR, ".",
                      TORCH_VERSION_PATCH, ", ", at::get_num_threads(), " intra-op threads, ",
                      blas_threads < 0 ? std::string("no OpenBLAS loaded")
                                       : absl::StrCat("OpenBLAS ", blas_threads, " threads"),
                      ", ", PeerEnvironmentSummary());
}

GemmPeak MeasureTorchGemm(int threads) {
  const int before = at::get_num_threads();
  SetTorchThreads(threads);
  const int n = kPeakGemmSize;
  torch::NoGradGuard no_grad;
  torch::Tensor a = torch::rand({n, n}), b = torch::rand({n, n}), c = torch::empty({n, n});
  GemmPeak peak;
  peak.gflops = TimeGemmGflops([&] { at::mm_out(c, a, b); }, n);
  const int blas_threads = OpenBlasThreads();
  peak.how = absl::StrCat("libtorch's at::mm, ",
                          blas_threads < 0 ? std::string("its BLAS")
                                           : absl::StrCat("OpenBLAS ", blas_threads,
                                                          blas_threads == 1 ? " thread" : " threads"),
                          ", n = ", n);
  SetTorchThreads(before);
  return peak;
}

absl::StatusOr<Outcome> TorchInferMlp(const MlpWeights& weights, const ImageSet& set,
                                      int batch, int64_t steps, int threads) {
  if (absl::Status s = CheckSteps(set, batch, steps); !s.ok()) return s;
  SetTorchThreads(threads);
  TorchMlp model(weights);
  model->eval();
  c10::InferenceMode guard;
  for (int i = 0; i < kWarmupSteps; ++i) model->forward(Images(set, 0, batch));
  InferenceChecksum checksum(set.classes);
  Stopwatch sw;
  for (int64_t s = 0; s < steps; ++s) {
    torch::Tensor logits = model->forward(Images(set, s, batch));
    checksum.Add(logits.data_ptr<float>(), set.batch_labels(s, batch), batch);
  }
  Outcome o;
  o.seconds = sw.Seconds();
  o.steps = steps;
  o.checks = checksum.Checks();
  o.note = ThreadsNote();
  return o;
}

absl::StatusOr<Outcome> TorchTrainMlp(const MlpWeights& weights, const FashionMnist& data,
                                      int batch, int64_t steps, float lr, int threads) {
  const ImageSet& set = data.train;
  if (absl::Status s = CheckSteps(set, batch, steps); !s.ok()) return s;
  SetTorchThreads(threads);
  std::vector<int64_t> labels(set.labels.begin(), set.labels.end());
  auto y_of = [&](int64_t s) {
    return torch::from_blob(labels.data() + s * batch, {batch}, torch::kLong);
  };
  auto step = [&](TorchMlp& model, torch::optim::SGD& opt, int64_t s) {
    opt.zero_grad();
    torch::Tensor loss =
        torch::nn::functional::cross_entropy(model->forward(Images(set, s, batch)), y_of(s));
    loss.backward();
    opt.step();
    return loss.item<float>();
  };
  {
    // Warm up threads and allocator on a throw-away copy.
    TorchMlp model(weights);
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(lr));
    for (int i = 0; i < kWarmupSteps; ++i) step(model, opt, i % steps);
  }
  TorchMlp model(weights);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(lr));
  LossWindow losses(100);
  Stopwatch sw;
  for (int64_t s = 0; s < steps; ++s) losses.Add(step(model, opt, s));
  Outcome o;
  o.seconds = sw.Seconds();
  o.steps = steps;
  o.checks = TrainingChecks(losses, model->Export(), data.test);
  o.note = ThreadsNote();
  return o;
}

absl::StatusOr<Outcome> TorchAdds(int64_t calls, bool inference_mode) {
  c10::InferenceMode guard(inference_mode);
  torch::Tensor a = torch::tensor({1.f, 1.f});
  torch::Tensor b = torch::tensor({0.f, 1.f});
  torch::Tensor c = torch::tensor({1.f, 5.f});
  double total = 0;
  for (int i = 0; i < 1000; ++i) {
    torch::Tensor r = (a + b) + (a + c);
    total += r.data_ptr<float>()[0];
  }
  total = 0;
  Stopwatch sw;
  for (int64_t i = 0; i < calls; ++i) {
    torch::Tensor r = (a + b) + (a + c);
    const float* v = r.data_ptr<float>();
    total += v[0] + v[1];
  }
  Outcome o;
  o.seconds = sw.Seconds();
  o.steps = calls;
  o.checks = {{"mean result sum", total / calls, 1e-6}};
  o.note = inference_mode ? "InferenceMode" : "autograd on (default)";
  return o;
}

}  // namespace tfipu_bench
