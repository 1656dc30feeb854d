// infer_mlp: the MLP 784-256(relu)-128(relu)-10 forward, batch 32, over one
// epoch of Fashion-MNIST's training images in file order, by each
// contestant from the same weights. Prints steps/s, the ratios against the
// peers (libtorch and hand-written Eigen, each at the run's threads and at
// one: the best peer is the fastest at any thread count) and the checks
// (mean logit, accuracy) that must agree.
//
//   bazel run -c opt //tools/bench:infer_mlp [-- --repeats=3 --only=tfipu-cpu]
//
// A contestant is one function below, added in main().
#include <iostream>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/runtime/session.h"
#include "tools/bench/bench_flags.h"
#include "tools/bench/contest.h"
#include "tools/bench/eigen_mlp.h"
#include "tools/bench/fashion_mnist.h"
#include "tools/bench/gemm_peak.h"
#include "tools/bench/ipu_setup.h"
#include "tools/bench/library_mlp.h"
#include "tools/bench/machine_info.h"
#include "tools/bench/mlp_checks.h"
#include "tools/bench/mlp_weights.h"
#include "tools/bench/peer_env.h"
#include "tools/bench/stopwatch.h"
#include "tools/bench/table.h"
#include "tools/bench/torch_peer.h"

namespace tfipu_bench {
namespace {

namespace tfipu = tensorflow_ipu;

constexpr int kBatch = 32;
constexpr int kWarmupSteps = 20;

absl::Status StepsFit(const ImageSet& set, int64_t steps) {
  if (steps < 1 || steps > set.num_batches(kBatch)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "steps = ", steps, ": the set has ", set.num_batches(kBatch), " batches"));
  }
  return absl::OkStatus();
}

// (d) The hand-written Eigen loop.
absl::StatusOr<Outcome> EigenInfer(const MlpWeights& weights, const ImageSet& set,
                                   int64_t steps, int threads,
                                   ProductLibrary products = ProductLibrary::kEigen) {
  if (absl::Status s = StepsFit(set, steps); !s.ok()) return s;
  SetEigenThreads(threads);
  EigenMlp mlp(weights, products);
  std::vector<float> logits(kBatch * set.classes);
  for (int i = 0; i < kWarmupSteps; ++i) mlp.Forward(set.batch_images(0, kBatch), kBatch, logits.data());
  InferenceChecksum checksum(set.classes);
  Stopwatch sw;
  for (int64_t s = 0; s < steps; ++s) {
    mlp.Forward(set.batch_images(s, kBatch), kBatch, logits.data());
    checksum.Add(logits.data(), set.batch_labels(s, kBatch), kBatch);
  }
  Outcome o;
  o.seconds = sw.Seconds();
  o.steps = steps;
  o.checks = checksum.Checks();
  o.note = absl::StrCat(threads, threads == 1 ? " thread" : " threads", " (OpenMP)",
                        ProductLibraryNote(products));
  return o;
}

// (a, b) This library: the graph of library_mlp.h, weights as constants,
// one ClientSession::Run per step feeding the batch and fetching the logits;
// on the CPU executor or under ipu_scope on the simulated IPU.
absl::StatusOr<Outcome> LibraryInfer(const MlpWeights& weights, const ImageSet& set,
                                     int64_t steps, int threads, bool on_ipu) {
  if (absl::Status s = StepsFit(set, steps); !s.ok()) return s;
  tfipu::Scope root = tfipu::Scope::NewRootScope();
  tfipu::Scope compute = on_ipu ? tfipu::ipu::scopes::ipu_scope(root, "/device:IPU:0")
                                : root.WithDevice("cpu");
  MlpGraphOptions options;
  options.batch = kBatch;
  absl::StatusOr<MlpGraph> g = BuildMlpGraph(root, compute, weights, options);
  if (!g.ok()) return g.status();
  tfipu::SessionOptions session_options;
  session_options.num_threads = threads;
  tfipu::ClientSession session(root, session_options);
  // The batches as tensors, made before the timed loop, as the peers read
  // theirs in place (from_blob, Map): an input pipeline's work is not
  // what is measured here. Each is a slice of one tensor of the epoch's
  // images, which the library holds in huge pages as the benchmark holds
  // the peers' (fashion_mnist.h).
  const tfipu::Tensor epoch = FloatMatrix(set.batch_images(0, kBatch), steps * kBatch, set.pixels);
  std::vector<tfipu::Tensor> batches;
  batches.reserve(steps);
  for (int64_t s = 0; s < steps; ++s) {
    absl::StatusOr<tfipu::Tensor> batch = epoch.Slice(s * kBatch, (s + 1) * kBatch);
    if (!batch.ok()) return batch.status();
    batches.push_back(*std::move(batch));
  }
  std::vector<tfipu::Tensor> out;
  for (int i = 0; i < kWarmupSteps; ++i) {
    absl::Status st = session.Run({{g->images, batches[0]}}, {g->logits}, &out);
    if (!st.ok()) return st;
  }
  InferenceChecksum checksum(set.classes);
  Stopwatch sw;
  for (int64_t s = 0; s < steps; ++s) {
    absl::Status st = session.Run({{g->images, batches[s]}}, {g->logits}, &out);
    if (!st.ok()) return st;
    checksum.Add(out[0].data<float>(), set.batch_labels(s, kBatch), kBatch);
  }
  Outcome o;
  o.seconds = sw.Seconds();
  o.steps = steps;
  o.checks = checksum.Checks();
  o.note = absl::StrCat(threads, threads == 1 ? " thread" : " threads");
  if (on_ipu) {
    // One more step, outside the timed loop, for what it cost on the IPU.
    tfipu::RunMetadata metadata;
    absl::Status st = session.Run(tfipu::RunOptions(), {{g->images, batches[0]}},
                                  {g->logits}, {}, &out, &metadata);
    if (!st.ok()) return st;
    absl::StrAppend(&o.note, SimulatedIpuTimeNote(metadata, "step"));
  }
  return o;
}

int Main(int argc, char** argv) {
  ReexecWithPeerEnvironment(argc, argv);
  ParseBenchFlags(argc, argv,
                  "infer_mlp: MLP forward over one epoch of Fashion-MNIST, "
                  "this library vs libtorch vs hand-written Eigen");
  const int threads = BenchThreads();
  absl::StatusOr<FashionMnist> data = LoadFashionMnist();
  if (!data.ok()) {
    std::cerr << "infer_mlp: " << data.status() << "\n";
    return 1;
  }
  if (absl::Status s = ConfigureBenchIpus(1); !s.ok()) {
    std::cerr << "infer_mlp: " << s << "\n";
    return 1;
  }
  SetTorchThreads(threads);
  const MlpWeights weights = GlorotUniformMlp(FashionMlpSizes(), kBenchSeed);
  const ImageSet& train = data->train;
  ContestOptions options = ContestOptionsFromFlags(train.num_batches(kBatch));

  Contest contest(absl::StrCat("infer_mlp: MLP 784-256-128-10 forward, batch ", kBatch,
                               ", ", options.steps, " steps of Fashion-MNIST"),
                  Metric::kStepsPerSecond);
  contest.Add({"libtorch", /*peer=*/true, [&](int64_t steps) {
                 return TorchInferMlp(weights, train, kBatch, steps, threads);
               }});
  if (threads > 1) {
    // The best peer is the fastest at any thread count (PEERS.md).
    contest.Add({"libtorch-1thread", /*peer=*/true, [&](int64_t steps) {
                   return TorchInferMlp(weights, train, kBatch, steps, 1);
                 }});
  }
  contest.Add({"eigen", /*peer=*/true, [&](int64_t steps) {
                 return EigenInfer(weights, train, steps, threads);
               }});
  contest.Add({"eigen-1thread", /*peer=*/true, [&](int64_t steps) {
                 return EigenInfer(weights, train, steps, 1);
               }});
  // With the library's own GEMM choice (see train_mlp.cc).
  contest.Add({"eigen-onednn-1thread", /*peer=*/true, [&](int64_t steps) {
                 return EigenInfer(weights, train, steps, 1, ProductLibrary::kOneDnnWhereFaster);
               }});
  contest.Add({"tfipu-cpu", false, [&](int64_t steps) {
                 return LibraryInfer(weights, train, steps, threads, /*on_ipu=*/false);
               }});
  contest.Add({"tfipu-ipu", false, [&](int64_t steps) {
                 return LibraryInfer(weights, train, steps, threads, /*on_ipu=*/true);
               }});

  // The distance to the machine's limit: each row's GFLOP/s against the
  // best GEMM rate of this machine at these threads, measured now.
  contest.SetWork(MlpInferenceFlops(FashionMlpSizes(), kBatch));
  contest.SetPeak(BestGemmPeak(
      {MeasureEigenGemm(threads), MeasureDnnlGemm(threads), MeasureTorchGemm(threads)}));
  SetTorchThreads(threads);
  std::cout << MachineSummary() << TorchSummary() << "\n" << IpuSummary() << "\n\n";
  return RunAndReport(contest, options);
}

}  // namespace
}  // namespace tfipu_bench

int main(int argc, char** argv) { return tfipu_bench::Main(argc, argv); }
