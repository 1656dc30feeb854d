// The libtorch peer of the benchmarks (PyTorch's C++ API, CPU), written the
// way a libtorch user would: nn::Linear layers, ReLU, cross_entropy,
// optim::SGD, one step per iteration. This header includes no libtorch
// header: only torch_peer.cc does (compiling libtorch's headers takes about
// a minute per file).
//
//   ASSIGN_OR_RETURN(Outcome o, TorchInferMlp(weights, data.train, 32, 1875, 2));
//
// Run it in the environment of peer_env.h (OpenBLAS, OMP_WAIT_POLICY).
#ifndef TOOLS_BENCH_TORCH_PEER_H_
#define TOOLS_BENCH_TORCH_PEER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "tools/bench/contest.h"
#include "tools/bench/fashion_mnist.h"
#include "tools/bench/gemm_peak.h"
#include "tools/bench/mlp_weights.h"

namespace tfipu_bench {

// at::set_num_threads (libtorch's intra-op pool; it defaults to 1 on these
// VMs) and OpenBLAS's own threads (openblas_threads.h), so that n threads
// are all the peer uses.
void SetTorchThreads(int n);
// "libtorch 1.13.0, 2 intra-op threads, OpenBLAS 2 threads,
// OMP_WAIT_POLICY=..., BLAS: ...".
std::string TorchSummary();
// libtorch's float product (at::mm, its BLAS) at n = kPeakGemmSize on
// `threads` threads (SetTorchThreads; the previous count is restored).
GemmPeak MeasureTorchGemm(int threads);

// Forward passes over the first `steps` batches of `set` in file order,
// under InferenceMode, on `threads` threads (SetTorchThreads: libtorch's and
// OpenBLAS's, left so; the note says what ran); checks: InferenceChecksum.
absl::StatusOr<Outcome> TorchInferMlp(const MlpWeights& weights, const ImageSet& set,
                                      int batch, int64_t steps, int threads);

// SGD (lr) on mean softmax cross-entropy over the first `steps` batches of
// data.train, on `threads` threads (as above); checks: TrainingChecks on
// data.test.
absl::StatusOr<Outcome> TorchTrainMlp(const MlpWeights& weights, const FashionMnist& data,
                                      int batch, int64_t steps, float lr, int threads);

// `calls` evaluations of (a + b) + (a + c) on three float tensors of shape
// [2] = [1, 1], [0, 1], [1, 5], reading the result each time; with
// InferenceMode when `inference_mode`. Check: the mean of the results' sums
// (11).
absl::StatusOr<Outcome> TorchAdds(int64_t calls, bool inference_mode);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_TORCH_PEER_H_
