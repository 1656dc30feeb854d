// Fashion-MNIST for the training example: 28x28 grey images of clothes in
// ten classes, read from the IDX files that Debian's dataset-fashion-mnist
// package installs, as the tensors a graph program feeds.
//
//   ASSIGN_OR_RETURN(FashionMnist data, LoadFashionMnist());
//   data.train.images;   // float [60000, 784], pixels scaled by 1/255
//   data.train.labels;   // int32 [60000], classes 0..9
//   data.test.count();   // 10000
//
// When the files are missing the error says which, and names the package
// to install (apt-get install dataset-fashion-mnist).
#ifndef EXAMPLES_FASHION_MNIST_FASHION_MNIST_DATA_H_
#define EXAMPLES_FASHION_MNIST_FASHION_MNIST_DATA_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace examples {

// Where dataset-fashion-mnist puts the files.
inline constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";
// The Debian package that provides them.
inline constexpr char kFashionMnistPackage[] = "dataset-fashion-mnist";
inline constexpr int kFashionMnistPixels = 28 * 28;
inline constexpr int kFashionMnistClasses = 10;

struct LabelledImages {
  Tensor images;  // DT_FLOAT [count, 784], each pixel in [0, 1]
  Tensor labels;  // DT_INT32 [count], each in [0, 10)
  int64_t count() const { return labels.dim_size(0); }
};

struct FashionMnist {
  LabelledImages train;  // "train-*": 60,000 images
  LabelledImages test;   // "t10k-*": 10,000 images
};

// Reads "<dir>/<prefix>-images-idx3-ubyte.gz" and
// "<dir>/<prefix>-labels-idx1-ubyte.gz". With `limit` > 0 only the first
// `limit` examples are kept. Errors:
//  - NotFound when `dir` or a file is missing, naming it and the package;
//  - InvalidArgument when a file holds something other than uint8 images
//    [count, 28, 28] or uint8 labels [count] below 10, or the two counts
//    differ (naming the files);
//  - DataLoss for a corrupt compressed file (from the IDX reader).
absl::StatusOr<LabelledImages> LoadFashionMnistSplit(const std::string& dir,
                                                     const std::string& prefix,
                                                     int64_t limit = 0);

// Both splits of `dir`; `train_limit` and `test_limit` as `limit` above.
absl::StatusOr<FashionMnist> LoadFashionMnist(
    const std::string& dir = kFashionMnistDir, int64_t train_limit = 0,
    int64_t test_limit = 0);

}  // namespace examples
}  // namespace tensorflow_ipu

#endif  // EXAMPLES_FASHION_MNIST_FASHION_MNIST_DATA_H_
