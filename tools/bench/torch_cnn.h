// The libtorch peer of train_keras_cnn: the seed tutorial's CNN
// (keras_cnn.h) written the way a libtorch user would: nn::Conv2d,
// MaxPool2d, Dropout, Linear, cross_entropy on the logits (the softmax
// folded into the loss, as Keras does for a softmax output), optim::SGD,
// one step per iteration, batches in file order. Only torch_cnn.cc and
// torch_peer.cc include libtorch's headers.
//
//   ASSIGN_OR_RETURN(Outcome o, TorchTrainCnn(weights, data, 64, 937, 0.01f, 2));
//
// Run it in the environment of peer_env.h (OpenBLAS, OMP_WAIT_POLICY).
#ifndef TOOLS_BENCH_TORCH_CNN_H_
#define TOOLS_BENCH_TORCH_CNN_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "tools/bench/contest.h"
#include "tools/bench/fashion_mnist.h"
#include "tools/bench/keras_cnn.h"

namespace tfipu_bench {

// SGD (lr) on the mean cross-entropy of the first `steps` batches of
// data.train from `weights` (converted to libtorch's layouts), on
// `threads` threads (SetTorchThreads), after a warm-up of 20 steps on a
// throw-away copy. Checks: "epoch loss" (the mean of the steps' losses,
// which Keras's fit reports) and "test accuracy" on the first whole
// batches of data.test.
absl::StatusOr<Outcome> TorchTrainCnn(const CnnWeights& weights, const FashionMnist& data,
                                      int batch, int64_t steps, float lr, int threads);

// The tolerances of those checks: the contestants draw different dropout
// masks, so their losses differ by more than rounding.
inline constexpr double kCnnEpochLossTolerance = 0.05;
inline constexpr double kCnnTestAccuracyTolerance = 0.03;

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_TORCH_CNN_H_
